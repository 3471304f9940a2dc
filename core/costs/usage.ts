/**
 * How a workflow run's usage is attributed, in one place for cost analytics, budget spend and
 * the dispatcher gate (spec 02: bucketed by reported_at, then started_at, then created_at).
 * `r` is the workflow_runs alias every query here uses. The usage rollup's triggers (migration
 * 0960) repeat this attribution in SQL: change both together (test/handlers/usage-rollup.test.ts
 * holds the rollup to the raw aggregate written with these).
 */

/** The instant a run's usage counts at; matches the expression index workflow_runs_usage_day. */
export const usageAtSql = 'coalesce(r.reported_at, r.started_at, r.created_at)';

/** The agent a run's spend belongs to: the agent that owns it, else the agent it was routed to. */
export const runAgentSql = 'coalesce(r.owner_agent_id, r.target_agent_id)';

/** Tokens a cap in tokens counts: input plus output; cached tokens are a subset of input, never added. */
export const runTokensSql = '(coalesce(r.input_tokens, 0) + coalesce(r.output_tokens, 0))';

/** A run with tokens but no cost is unpriced: its model has no price, and it is never counted as free. */
export const unpricedRunSql = `(r.cost_estimate IS NULL AND ${runTokensSql} > 0)`;

/** Unpriced usage as the cost answers show it, beside their totals. */
export interface UnpricedUsage {
  unpriced_runs: number;
  unpriced_tokens: { input: number; output: number };
}

/** Adds rows of unpriced aggregates into one answer. */
export function unpricedOf(rows: ReadonlyArray<{ unpriced_runs: number; unpriced_input: number; unpriced_output: number }>): UnpricedUsage {
  const total: UnpricedUsage = { unpriced_runs: 0, unpriced_tokens: { input: 0, output: 0 } };
  for (const row of rows) {
    total.unpriced_runs += row.unpriced_runs;
    total.unpriced_tokens.input += Number(row.unpriced_input);
    total.unpriced_tokens.output += Number(row.unpriced_output);
  }
  return total;
}

/** The name of the group of runs whose agent (or the agent's department) is unknown. */
export const UNASSIGNED = 'Unassigned';

const DAY_MS = 86_400_000;

/** Start of the UTC day of `at`. */
export function utcDayStart(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
}

export function addDays(at: Date, days: number): Date {
  return new Date(at.getTime() + days * DAY_MS);
}

/** YYYY-MM-DD of a UTC day. */
export function isoDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** Sums of floating costs are rounded to a micro-dollar so that 0.1 + 0.2 reads 0.3. */
export function roundUsd(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
