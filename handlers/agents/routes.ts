import * as z from 'zod';
import { agentBillingSchema } from '../../core/agents/billing';
import { heartbeatSchema, livenessEntrySchema, livenessQuerySchema } from '../../core/agents/liveness';
import { claimSchema, releaseSchema } from '../../core/agents/locks';
import { rosterQuerySchema, rosterSchema } from '../../core/agents/roster';
import { agentRead } from '../../core/auth/agent-rules';
import { taskSchema } from '../../core/tasks/task';
import { anyObject } from '../openapi/report-schemas';
import type { Route } from '../route';

const agentLimitsSchema = z.object({
  agent_id: z.string(),
  max_concurrent_runs: z.number().int().nullable(),
  dispatch_paused_until: z.date().nullable(),
  pause_reason: z.string().nullable(),
  live_runs: z.number().int(),
});

const agentBridgeSchema = z.object({
  state: z.enum(['workflow_ready', 'working', 'idle']),
  agent: z.string(),
  ready_count: z.number().int(),
  active_count: z.number().int(),
  pending_workflow_runs: z.array(
    z.object({
      id: z.string(),
      workflow_type: z.string(),
      target_agent_id: z.string(),
      input_payload: anyObject,
      dispatch_attempts: z.number().int(),
    }),
  ),
  workflow_run_count: z.number().int(),
});

/** Agents: claims, heartbeats, liveness, limits and billing, the roster and the bridge (spec 01 and spec 03). */
export const routes: readonly Route[] = [
  {
    method: 'POST',
    path: '/api/agent/claim',
    handler: 'agents/claim-task',
    agent: { scope: 'agent', self: ['agent_name'], ownTask: 'task_id' },
    body: claimSchema,
    response: taskSchema,
  },
  {
    method: 'POST',
    path: '/api/agent/claim/renew',
    handler: 'agents/renew-claim',
    agent: { scope: 'agent', self: ['agent_name'] },
    response: taskSchema,
  },
  {
    method: 'POST',
    path: '/api/agent/release',
    handler: 'agents/release-task',
    agent: { scope: 'agent', self: ['agent_name'] },
    body: releaseSchema,
    response: z.object({ released: z.literal(true) }),
  },
  {
    method: 'POST',
    path: '/api/agents/heartbeat',
    handler: 'agents/record-heartbeat',
    agent: { scope: 'agent', self: ['agent_name'] },
    body: heartbeatSchema,
    response: z.object({ ok: z.literal(true) }),
  },
  {
    method: 'GET',
    path: '/api/agents/status',
    handler: 'agents/list-agent-status',
    agent: agentRead,
    query: livenessQuerySchema,
    response: z.object({ agents: z.array(livenessEntrySchema) }),
  },
  { method: 'GET', path: '/api/agents/:agent/limits', handler: 'agents/get-agent-limits', agent: agentRead, response: agentLimitsSchema },
  { method: 'PUT', path: '/api/agents/:agent/limits', handler: 'agents/put-agent-limits', response: agentLimitsSchema },
  { method: 'PUT', path: '/api/agents/:agent/billing', handler: 'agents/put-agent-billing', response: agentBillingSchema },
  {
    method: 'POST',
    path: '/api/agents/:agent/resume-dispatch',
    handler: 'agents/resume-agent-dispatch',
    response: agentLimitsSchema.extend({ resumed: z.boolean() }),
  },
  { method: 'GET', path: '/api/agents/roster', handler: 'agents/list-agent-roster', query: rosterQuerySchema, response: rosterSchema },

  {
    method: 'GET',
    path: '/api/agents/:agent/bridge',
    handler: 'agents/get-agent-bridge',
    agent: { scope: 'agent', selfParam: 'agent' },
    response: agentBridgeSchema,
  },
];
