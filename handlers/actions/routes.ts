import * as z from 'zod';
import { envelopeSchema } from '../../core/actions/envelope';
import { actionAnswerSchema } from '../../core/actions/execute';
import { receiptSchema } from '../../core/actions/receipts';
import { agentRead } from '../../core/auth/agent-rules';
import { anyObject } from '../openapi/report-schemas';
import type { Route } from '../route';

const recentReceiptsSchema = z.object({ available: z.literal(true), receipts: z.array(receiptSchema), timestamp: z.string() });

const actionCatalogSchema = z.object({
  hold_confirm_min_ms: z.number().int(),
  kinds: z.array(
    z.object({
      kind: z.string(),
      target: z.unknown(),
      params_schema: anyObject,
      severity: z.string(),
      confirm: z.looseObject({ mode: z.string() }),
      rollback_hint_template: z.string().nullable(),
      governance_action: z.union([z.string(), anyObject]),
      dispatch_class: z.boolean(),
    }),
  ),
});

/** Governed actions (spec 02). */
export const routes: readonly Route[] = [
  // the agent is the actor of its governed action, so its profile decides (spec 03 rule 3)
  {
    method: 'POST',
    path: '/api/actions/execute',
    handler: 'actions/execute-action',
    agent: { scope: 'agent', actor: ['actor'] },
    body: envelopeSchema,
    response: actionAnswerSchema,
  },
  { method: 'GET', path: '/api/actions/recent', handler: 'actions/list-recent-actions', response: recentReceiptsSchema, degrades: true },
  { method: 'GET', path: '/api/actions/catalog', handler: 'actions/get-action-catalog', agent: agentRead, response: actionCatalogSchema },
];
