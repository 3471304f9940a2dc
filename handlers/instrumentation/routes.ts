import * as z from 'zod';
import { agentRead } from '../../core/auth/agent-rules';
import { telemetrySchema } from '../../core/workflows/instrumentation';
import type { Route } from '../route';

const recordedSchema = z.object({ recorded: z.literal(true), action: z.string(), audit_id: z.number().int() });

const usageDecisionSchema = z.looseObject({
  window: z.object({ start: z.date(), end: z.date(), days: z.number().int() }),
  rule: z.unknown(),
});

/** Instrumentation: the workflow graph's events and usage decision, the tool server's telemetry. */
export const routes: readonly Route[] = [
  {
    method: 'POST',
    path: '/api/workflow-graph/events',
    handler: 'instrumentation/record-workflow-graph-event',
    success: [201],
    response: recordedSchema,
  },
  {
    method: 'GET',
    path: '/api/workflow-graph/usage-decision',
    handler: 'instrumentation/get-workflow-graph-usage-decision',
    response: usageDecisionSchema,
  },
  // the tool server reports its own telemetry whatever its token's scope
  {
    method: 'POST',
    path: '/api/mcp/telemetry',
    handler: 'instrumentation/record-mcp-telemetry',
    agent: agentRead,
    success: [201],
    body: telemetrySchema,
    response: recordedSchema,
  },
];
