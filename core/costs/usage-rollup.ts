import * as z from 'zod';
import { OPERATOR_ACTOR } from '../actors';
import { recordChange } from '../audit/record-change';
import type { Db, Deps } from '../ports';
import { requireDb } from '../storage';
import { parseInput } from '../validation';
import { runAgentSql, unpricedRunSql, usageAtSql } from './usage';

/**
 * The usage rollup (migration 0960): run usage per UTC day x agent x project x workflow type x
 * billing mode, kept by triggers in the transaction of every write of a run. Cost analytics and
 * budget spend read it instead of the runs (a few thousand rows, not every run of their window); it
 * answers what the raw aggregate over the runs answers (attribution of ./usage.ts), which a test
 * checks and POST /api/costs/rebuild restores.
 */

/** The UTC day (a date) of a timestamptz parameter such as `$1`. */
export const utcDayOf = (param: string) => `(${param}::timestamptz AT TIME ZONE 'UTC')::date`;

/**
 * The rollup rows of the UTC days of [from, to) (timestamptz parameters): folded rows and the deltas
 * not folded yet, in one snapshot. A relation with the columns day, agent_id ('' for none),
 * project_id ('' for none), workflow_type, billing (metered or subscription), runs, cost (numeric,
 * every run's cost_estimate), input_tokens, output_tokens, unpriced_runs, unpriced_input, unpriced_output.
 * Several rows may share a key: readers sum, and leave out keys whose runs sum to 0.
 */
export function usageRollupSql(from: string, to: string): string {
  const cols =
    'day, agent_id, project_id, workflow_type, billing, runs, cost, input_tokens, output_tokens, unpriced_runs, unpriced_input, unpriced_output';
  const where = `day >= ${utcDayOf(from)} AND day < ${utcDayOf(to)}`;
  return `(SELECT ${cols} FROM run_usage_daily WHERE ${where} UNION ALL SELECT ${cols} FROM run_usage_delta WHERE ${where})`;
}

/**
 * The runs whose usage falls in [from, to) as rows of the rollup's shape (one a run, with the same
 * attribution and measures), plus model_id: for what the rollup does not keep (spend by model). It
 * reads the runs of the window (through the usage-day index), so it costs what the window holds.
 */
export function runUsageRowsSql(from: string, to: string): string {
  const unpriced = unpricedRunSql;
  return `(SELECT (${usageAtSql} AT TIME ZONE 'UTC')::date AS day, coalesce(${runAgentSql}, '') AS agent_id, r.workflow_type, r.model_id,
            CASE WHEN r.billing = 'subscription' THEN 'subscription' ELSE 'metered' END AS billing, 1 AS runs,
            coalesce(r.cost_estimate, 0)::numeric AS cost, coalesce(r.input_tokens, 0) AS input_tokens, coalesce(r.output_tokens, 0) AS output_tokens,
            ${unpriced}::int AS unpriced_runs, CASE WHEN ${unpriced} THEN coalesce(r.input_tokens, 0) ELSE 0 END AS unpriced_input,
            CASE WHEN ${unpriced} THEN coalesce(r.output_tokens, 0) ELSE 0 END AS unpriced_output
       FROM workflow_runs r WHERE ${usageAtSql} >= ${from} AND ${usageAtSql} < ${to})`;
}

/** Billed and shadow (subscription) cost of rollup rows `u`, as float8 sums. */
export const rollupBilledCostSql = "sum(u.cost) FILTER (WHERE u.billing = 'metered')::float8";
export const rollupSubscriptionCostSql = "sum(u.cost) FILTER (WHERE u.billing = 'subscription')::float8";

/** What cost answers sum over rollup rows `u`: cost, subscription_cost, runs, input, output and the unpriced three. */
export const rollupTotalsSql = `${rollupBilledCostSql} AS cost, ${rollupSubscriptionCostSql} AS subscription_cost,
  sum(u.runs)::int AS runs, sum(u.input_tokens) AS input, sum(u.output_tokens) AS output,
  sum(u.unpriced_runs)::int AS unpriced_runs, sum(u.unpriced_input) AS unpriced_input, sum(u.unpriced_output) AS unpriced_output`;

/** Folds the committed deltas into the daily rows (each dispatcher tick); answers how many it folded. */
export async function foldUsageDeltas(db: Db): Promise<number> {
  const { rows } = await db.query<{ folded: number }>('SELECT run_usage_compact() AS folded');
  return rows[0]?.folded ?? 0;
}

export const rebuildUsageSchema = z.strictObject({ actor: z.string().trim().min(1, 'must not be empty').max(200).default(OPERATOR_ACTOR) });

/**
 * POST /api/costs/rebuild {actor?} (operator): recomputes the rollup from the runs in one
 * transaction (writers of runs wait for it), audited; answers the rows written and the runs they hold.
 */
export async function rebuildUsageRollup(deps: Deps, body: unknown) {
  const { actor } = parseInput(rebuildUsageSchema, body ?? {}, 'rebuild');
  return requireDb(deps.storage).transaction(async (tx) => {
    const rows = await rebuildUsage(tx);
    const { rows: runs } = await tx.query<{ n: number }>('SELECT coalesce(sum(runs), 0)::int8 AS n FROM run_usage_daily');
    const answer = { rows, runs: runs[0]?.n ?? 0, rebuilt_at: deps.clock.now().toISOString() };
    await recordChange(deps, tx, { actor, action: 'rebuilt', entityType: 'usage_rollup', entityId: 'run_usage_daily', newValue: answer });
    return answer;
  });
}

/** The rebuild itself, inside the caller's transaction (restore calls it last). */
export async function rebuildUsage(tx: Db): Promise<number> {
  const { rows } = await tx.query<{ made: number }>('SELECT run_usage_rebuild() AS made');
  return rows[0]?.made ?? 0;
}
