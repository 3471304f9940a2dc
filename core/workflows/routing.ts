import * as z from 'zod';
import { OPERATOR_ACTOR } from '../actors';
import { recordChange } from '../audit/record-change';
import { NotFoundError } from '../errors';
import type { Deps } from '../ports';
import { requireDb } from '../storage';
import { parseInput } from '../validation';
import { actorSchema, agentIdSchema } from './run';
import { templateNameSchema } from './template';

/** A routing entry as the API answers it (spec 03 workflow_routing). */
export const routeSchema = z.object({
  workflow_type: z.string(),
  agent_id: z.string(),
  priority: z.number().int(),
  timeout_minutes: z.number().int(),
  /** Live runs of this workflow type at once (null: no cap). */
  max_concurrent: z.number().int().nullable(),
  /** Refuse a second live run for one task. */
  exclusive_per_task: z.boolean(),
  /** What one run is expected to spend; the unreported rest is reserved while it is live. */
  expected_cost_usd: z.number().nullable(),
  expected_tokens: z.number().int().nullable(),
  created_at: z.date(),
  updated_at: z.date(),
});
export type Route = z.infer<typeof routeSchema>;
const routeColumns =
  'workflow_type, agent_id, priority, timeout_minutes, max_concurrent, exclusive_per_task, expected_cost_usd, expected_tokens, created_at, updated_at';

const putRouteSchema = z.strictObject({
  agent_id: agentIdSchema,
  priority: z.number().int('must be a whole number').min(-1000).max(1000).default(0),
  timeout_minutes: z.number().int('must be a whole number').min(1, 'must be at least 1').max(10_080, 'at most a week (10080)').default(60),
  max_concurrent: z
    .number({ message: 'must be a whole number of at least 1, or null for no cap' })
    .int('must be a whole number')
    .min(1, 'must be at least 1 (null: no cap)')
    .max(100_000)
    .nullable()
    .default(null),
  exclusive_per_task: z.boolean({ message: 'must be true or false' }).default(false),
  expected_cost_usd: z
    .number({ message: 'must be a number of USD, or null' })
    .finite()
    .min(0, 'must not be negative')
    .max(1_000_000)
    .nullable()
    .default(null),
  expected_tokens: z
    .number({ message: 'must be a whole number of tokens, or null' })
    .int('must be a whole number')
    .min(0, 'must not be negative')
    .max(1e12)
    .nullable()
    .default(null),
  actor: actorSchema,
});
const deleteRouteSchema = z.strictObject({ actor: actorSchema }).default({ actor: OPERATOR_ACTOR });

function routeEvent(action: string, workflowType: string) {
  return { name: 'workflow-routing-updated', channel: 'stream' as const, payload: { action, workflowType } };
}

/** GET /api/workflow-routing: routes by priority (highest first), then workflow type. */
export async function listRoutes(deps: Pick<Deps, 'storage'>): Promise<{ routes: Route[] }> {
  const { rows } = await requireDb(deps.storage).query<Route>(
    `SELECT ${routeColumns} FROM workflow_agent_routing ORDER BY priority DESC, workflow_type`,
  );
  return { routes: rows };
}

export async function getRoute(deps: Pick<Deps, 'storage'>, rawType: unknown): Promise<Route> {
  const type = parseInput(templateNameSchema, rawType, 'workflowType');
  const { rows } = await requireDb(deps.storage).query<Route>(
    `SELECT ${routeColumns} FROM workflow_agent_routing WHERE workflow_type = $1`,
    [type],
  );
  if (!rows[0]) throw new NotFoundError(`no routing entry for workflow type ${type}`);
  return rows[0];
}

/** PUT /api/workflow-routing/:workflowType: creates or replaces the route; the next tick uses it. */
export async function putRoute(deps: Deps, rawType: unknown, body: unknown): Promise<Route> {
  const type = parseInput(templateNameSchema, rawType, 'workflowType');
  const input = parseInput(putRouteSchema, body ?? {}, 'route');
  return requireDb(deps.storage).transaction(async (tx) => {
    const { rows: before } = await tx.query<Route>(
      `SELECT ${routeColumns} FROM workflow_agent_routing WHERE workflow_type = $1 FOR UPDATE`,
      [type],
    );
    const now = deps.clock.now();
    const { rows } = await tx.query<Route>(
      `INSERT INTO workflow_agent_routing (workflow_type, agent_id, priority, timeout_minutes, max_concurrent, exclusive_per_task, expected_cost_usd, expected_tokens, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $6, $7, $8, $9, $5, $5)
       ON CONFLICT (workflow_type) DO UPDATE SET agent_id = $2, priority = $3, timeout_minutes = $4, max_concurrent = $6, exclusive_per_task = $7,
         expected_cost_usd = $8, expected_tokens = $9, updated_at = $5
       RETURNING ${routeColumns}`,
      [
        type,
        input.agent_id,
        input.priority,
        input.timeout_minutes,
        now,
        input.max_concurrent,
        input.exclusive_per_task,
        input.expected_cost_usd,
        input.expected_tokens,
      ],
    );
    const action = before[0] ? 'updated' : 'created';
    await recordChange(deps, tx, {
      actor: input.actor,
      action,
      entityType: 'workflow_route',
      entityId: type,
      oldValue: before[0],
      newValue: rows[0],
      event: routeEvent(action, type),
    });
    return rows[0]!;
  });
}

export async function deleteRoute(deps: Deps, rawType: unknown, body: unknown): Promise<{ deleted: true; workflow_type: string }> {
  const type = parseInput(templateNameSchema, rawType, 'workflowType');
  const { actor } = parseInput(deleteRouteSchema, body ?? {}, 'route delete');
  await requireDb(deps.storage).transaction(async (tx) => {
    const { rows } = await tx.query<Route>(`DELETE FROM workflow_agent_routing WHERE workflow_type = $1 RETURNING ${routeColumns}`, [type]);
    if (!rows[0]) throw new NotFoundError(`no routing entry for workflow type ${type}`);
    await recordChange(deps, tx, {
      actor,
      action: 'deleted',
      entityType: 'workflow_route',
      entityId: type,
      oldValue: rows[0],
      event: routeEvent('deleted', type),
    });
  });
  return { deleted: true, workflow_type: type };
}
