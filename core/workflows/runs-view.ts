import * as z from 'zod';
import type { Deps } from '../ports';
import { parseQuery, queryInt } from '../query-params';
import { requireDb } from '../storage';
import { pageAndTotal } from '../list-page';
import { uuidSchema } from '../validation';
import { dispatcherStats } from './dispatcher-stats';
import { fleetCapInForce, liveRunStatuses } from './caps';
import { agentIdSchema, workflowRunSchema } from './run';
import { priceSources, priceSourceOf, runActionsOf, runOperatorActions } from './run-page';
import { knownRunStatuses, runStatusGroups } from './run-status';

/**
 * The console's Runs screen in one request (docs/console-api.md): a page of runs, filtered as the
 * URL says, each with the buttons the API allows on it, and the queue and the dispatcher above them.
 */
export const runsViewQuerySchema = z.strictObject({
  status: z.string().min(1).max(50).optional(),
  workflow_type: z.string().min(1).max(100).optional(),
  /** The run's owner or its target agent. */
  agent: agentIdSchema.optional(),
  task_id: uuidSchema.optional(),
  limit: queryInt(1, 500).default(100),
});

const run = workflowRunSchema.pick({
  id: true,
  status: true,
  workflow_type: true,
  task_id: true,
  dispatch_attempts: true,
  retry_count: true,
  created_at: true,
  heartbeat_at: true,
  cost_estimate: true,
  currency: true,
  billing: true,
});
const capKinds = ['workflowType', 'agent', 'fleet'] as const;
const counts = z.object({ workflowType: z.number().int(), agent: z.number().int(), fleet: z.number().int() });

export const runsViewSchema = z.object({
  runs: z.array(
    run.extend({
      task_title: z.string().nullable(),
      /** The owner, else the agent it was routed to. */
      agent_id: z.string().nullable(),
      price_source: z.enum(priceSources),
      actions: z.array(z.enum(runOperatorActions)),
    }),
  ),
  /** Every run the filters match, which may exceed runs.length. */
  total: z.number().int(),
  truncated: z.boolean(),
  dispatcher: z.object({
    /** Runs waiting in the queue for a tick. */
    queue_depth: z.number().int(),
    /** Runs by status, every queue status shown even at zero. */
    by_status: z.record(z.string(), z.number().int()),
    /** Live runs (dispatched, claimed, running, waiting for approval): what DISPATCH_MAX_IN_FLIGHT caps. */
    in_flight: z.number().int(),
    max_in_flight: z.number().int().nullable(),
    last_tick: z
      .object({
        finished_at: z.date(),
        source: z.string(),
        duration_ms: z.number(),
        dispatched: z.number().int(),
        unrouted: z.number().int(),
        held_by_budget: z.number().int(),
        held_by_pause: z.number().int(),
        /** Runs left queued because a cap was full, per cap. */
        capped: counts,
      })
      .nullable(),
    /** Each concurrency cap set now, with its live runs: a full one holds its runs in the queue. */
    caps: z.array(z.object({ cap: z.enum(capKinds), name: z.string(), limit: z.number().int(), live: z.number().int() })),
    paused_agents: z.array(z.object({ agent_id: z.string(), until: z.date(), reason: z.string().nullable() })),
  }),
  /** The choices of the filters: every known status, every workflow template. */
  statuses: z.array(z.string()),
  workflow_types: z.array(z.string()),
});
export type RunsView = z.infer<typeof runsViewSchema>;
type RunRow = RunsView['runs'][number] & {
  input_tokens: number | null;
  output_tokens: number | null;
  cost_source: 'reported' | 'table' | 'runtime' | null;
};

/**
 * GET /api/views/runs. Steps: 1. the filters (400 on a bad one); 2. side by side: the page of runs
 * newest first with their tasks' titles, the dispatcher's stats (GET /api/workflow-runs/dispatcher/stats),
 * the caps set with their live counts, the template names; 3. each run's buttons by the transitions table.
 */
export async function getRunsView(deps: Pick<Deps, 'storage' | 'clock' | 'dispatcher'>, query: unknown): Promise<RunsView> {
  const q = parseQuery(runsViewQuerySchema, query);
  const db = requireDb(deps.storage);
  const [page, stats, caps, templates, fleetCap] = await Promise.all([
    pageAndTotal<RunRow>(
      db,
      {
        select: `r.id, r.status, r.workflow_type, r.task_id, t.title AS task_title, coalesce(r.owner_agent_id, r.target_agent_id) AS agent_id,
                 r.dispatch_attempts, r.retry_count, r.created_at, r.heartbeat_at, r.cost_estimate, r.currency, r.billing, r.cost_source, r.input_tokens, r.output_tokens`,
        from: 'workflow_runs r LEFT JOIN tasks t ON t.id = r.task_id',
        where: `($1::text IS NULL OR r.status = $1) AND ($2::text IS NULL OR r.workflow_type = $2)
                AND ($3::text IS NULL OR r.owner_agent_id = $3 OR r.target_agent_id = $3) AND ($4::uuid IS NULL OR r.task_id = $4)`,
        orderBy: 'r.created_at DESC, r.id DESC',
      },
      [q.status ?? null, q.workflow_type ?? null, q.agent ?? null, q.task_id ?? null],
      q.limit,
    ),
    dispatcherStats(deps),
    db.query<{ cap: 'workflowType' | 'agent'; name: string; limit: number; live: number }>(
      `SELECT 'workflowType' AS cap, w.workflow_type AS name, w.max_concurrent AS "limit",
              (SELECT count(*) FROM workflow_runs r WHERE r.workflow_type = w.workflow_type AND r.status = ANY($1::text[]))::int AS live
         FROM workflow_agent_routing w WHERE w.max_concurrent IS NOT NULL
       UNION ALL
       SELECT 'agent', c.agent_id, c.max_concurrent_runs,
              (SELECT count(*) FROM workflow_runs r WHERE r.target_agent_id = c.agent_id AND r.status = ANY($1::text[]))::int
         FROM agent_dispatch_controls c WHERE c.max_concurrent_runs IS NOT NULL
       ORDER BY 1, 2`,
      [liveRunStatuses],
    ),
    db.query<{ name: string }>('SELECT name FROM workflow_templates ORDER BY name'),
    fleetCapInForce(db, deps.dispatcher),
  ]);
  const byStatus: Record<string, number> = Object.fromEntries(Object.entries(stats.queue).filter(([status]) => status !== 'total'));
  const inFlight = runStatusGroups.live.reduce((sum, s) => sum + (byStatus[s] ?? 0), 0);
  const maxInFlight = fleetCap ?? null;
  const summary = stats.last_tick_summary;
  return {
    runs: page.rows.map(({ input_tokens, output_tokens, cost_source, ...r }) => ({
      ...r,
      price_source: priceSourceOf({ cost_source, cost_estimate: r.cost_estimate, input_tokens, output_tokens }),
      actions: runActionsOf(r.status),
    })),
    total: page.total,
    truncated: page.truncated,
    dispatcher: {
      queue_depth: byStatus.queued ?? 0,
      by_status: byStatus,
      in_flight: inFlight,
      max_in_flight: maxInFlight,
      last_tick:
        stats.last_tick && summary
          ? {
              finished_at: stats.last_tick.finished_at,
              source: stats.last_tick.source,
              duration_ms: stats.last_tick.duration_ms,
              dispatched: summary.dispatched,
              unrouted: summary.unrouted,
              held_by_budget: summary.budgetEnforcement?.held ?? 0,
              held_by_pause: summary.heldByPause ?? 0,
              capped: stats.capped,
            }
          : null,
      caps: [...caps.rows, ...(maxInFlight !== null ? [{ cap: 'fleet' as const, name: 'fleet', limit: maxInFlight, live: inFlight }] : [])],
      paused_agents: stats.paused_agents.map((p) => ({ agent_id: p.agent_id, until: p.dispatch_paused_until, reason: p.pause_reason })),
    },
    statuses: [...knownRunStatuses],
    workflow_types: templates.rows.map((t) => t.name),
  };
}
