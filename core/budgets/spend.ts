import { runStatusGroups } from '../workflows/run-status';
import type { Db } from '../ports';
import { roundUsd, runAgentSql, runTokensSql, unpricedRunSql, usageAtSql } from '../costs/usage';
import { rollupBilledCostSql, rollupSubscriptionCostSql, usageRollupSql, utcDayOf } from '../costs/usage-rollup';
import type { BudgetBasis, BudgetScope } from './budget';
import type { Spend } from './status';

export interface SpendQuery {
  id: string;
  scope: BudgetScope;
  scope_id: string | null;
  /** billed: subscription runs add no USD; list: they add their shadow cost. Tokens count either way. */
  basis: BudgetBasis;
  start: Date;
  end: Date;
}

/** Up to this many budgets (a dispatch's chain), runs are grouped by the budgets they count in; beyond, by day, agent and project. */
const FILTERED_AGGREGATE_MAX = 16;

/** What a budget's spend sums over rollup rows `u`, in both plans below. */
const spendTotalsSql = `${rollupBilledCostSql} AS usd, ${rollupSubscriptionCostSql} AS shadow, sum(u.input_tokens + u.output_tokens) AS tokens,
  sum(u.runs) AS runs, sum(u.unpriced_runs) AS unpriced`;

/**
 * Spend of a few budgets in one pass over the usage rollup rows of their windows. Each row gets one
 * boolean per budget (does it count there?) and the rows are grouped by that vector: a handful of
 * groups, each summed once; each budget then adds up the few groups it matches. Scope matches as in
 * deriveSpend.
 */
async function deriveFewSpends(db: Db, budgets: readonly SpendQuery[], from: Date, to: Date): Promise<Map<string, Spend>> {
  const params: unknown[] = [from, to];
  const param = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const scopes = new Set(budgets.map((b) => b.scope));
  const scopeSql = (b: SpendQuery) =>
    b.scope === 'fleet'
      ? 'true'
      : b.scope === 'agent'
        ? `u.agent_id = ${param(b.scope_id)}`
        : b.scope === 'department'
          ? `coalesce(ap.department_id = ${param(b.scope_id)}, false)`
          : `u.project_id = ${param(b.scope_id)}`;
  const matches = budgets.map(
    (b, i) => `(u.day >= ${utcDayOf(param(b.start))} AND u.day < ${utcDayOf(param(b.end))} AND ${scopeSql(b)}) AS m_${i}`,
  );
  const narrowing = scopes.has('fleet') ? [] : budgets.map(scopeSql);
  const vector = budgets.map((_, i) => `m_${i}`).join(', ');
  // the sums over groups stay in SQL so that USD is added in numeric, exactly as one sum would
  const totals = budgets.map(
    (b, i) =>
      (b.basis === 'list'
        ? `coalesce(sum(usd) FILTER (WHERE m_${i}), 0) + coalesce(sum(shadow) FILTER (WHERE m_${i}), 0) AS usd_${i}, `
        : `sum(usd) FILTER (WHERE m_${i}) AS usd_${i}, `) +
      `sum(tokens) FILTER (WHERE m_${i}) AS tokens_${i}, sum(runs) FILTER (WHERE m_${i}) AS runs_${i}, ` +
      `sum(unpriced) FILTER (WHERE m_${i}) AS unpriced_${i}`,
  );
  const { rows } = await db.query<Record<string, number | null>>(
    `SELECT ${totals.join(', ')} FROM (
       SELECT ${vector}, ${spendTotalsSql}
         FROM ${usageRollupSql('$1', '$2')} u
         ${scopes.has('department') ? 'LEFT JOIN agent_profiles ap ON ap.agent_id = u.agent_id' : ''}
         CROSS JOIN LATERAL (SELECT ${matches.join(', ')}) m
        ${scopes.has('fleet') ? '' : `WHERE ${narrowing.join(' OR ')}`}
        GROUP BY ${vector}
     ) groups`,
    params,
  );
  const row = rows[0] ?? {};
  return new Map(
    budgets.map((b, i) => [
      b.id,
      {
        usd: roundUsd(row[`usd_${i}`] ?? 0),
        tokens: row[`tokens_${i}`] ?? 0,
        runs: row[`runs_${i}`] ?? 0,
        unpriced_runs: row[`unpriced_${i}`] ?? 0,
      },
    ]),
  );
}

/**
 * The rows a budget query reads, as SQL with its parameters: `b` (the budgets), `daily` (the usage
 * rollup rows of the union of their windows reduced to one row per UTC day, agent and project,
 * summed by spendTotalsSql: periods are whole UTC days, so no precision is lost) and `matched`
 * (each budget beside the daily rows of its scope, by equality joins: agent, the agent's department
 * through agent_profiles, the task's project, or everything; with the budget's starts, ends and
 * basis). Without a fleet budget only the rows of the named scopes are read. A caller keeps the
 * rows of each budget's own window: `day >= starts AND day < ends` (see inWindowSql).
 */
function matchedRollupSql(budgets: readonly SpendQuery[]): { sql: string; params: unknown[] } {
  const from = new Date(Math.min(...budgets.map((b) => b.start.getTime())));
  const to = new Date(Math.max(...budgets.map((b) => b.end.getTime())));
  const scopes = new Set(budgets.map((b) => b.scope));
  const narrowing: string[] = [];
  if (scopes.has('agent')) narrowing.push(`u.agent_id IN (SELECT scope_id FROM b WHERE scope = 'agent')`);
  if (scopes.has('department')) {
    narrowing.push(
      `u.agent_id IN (SELECT ap.agent_id FROM agent_profiles ap JOIN b ON b.scope = 'department' AND ap.department_id = b.scope_id)`,
    );
  }
  if (scopes.has('project')) narrowing.push(`u.project_id IN (SELECT scope_id FROM b WHERE scope = 'project')`);
  const rowFilter = scopes.has('fleet') ? '' : `WHERE ${narrowing.join(' OR ')}`;
  return {
    sql: `WITH b AS (
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::timestamptz[], $5::timestamptz[], $8::text[])
         AS b(id, scope, scope_id, starts, ends, basis)
     ), daily AS (
       SELECT u.day, u.agent_id AS agent, u.project_id AS project, ${spendTotalsSql}
         FROM ${usageRollupSql('$6', '$7')} u ${rowFilter}
        GROUP BY 1, 2, 3
     ), matched AS (
       SELECT b.id, b.starts, b.ends, b.basis, d.* FROM b JOIN daily d ON b.scope = 'fleet'
       UNION ALL
       SELECT b.id, b.starts, b.ends, b.basis, d.* FROM b JOIN daily d ON b.scope = 'agent' AND d.agent = b.scope_id
       UNION ALL
       SELECT b.id, b.starts, b.ends, b.basis, d.* FROM b
         JOIN agent_profiles ap ON b.scope = 'department' AND ap.department_id = b.scope_id
         JOIN daily d ON d.agent = ap.agent_id
       UNION ALL
       SELECT b.id, b.starts, b.ends, b.basis, d.* FROM b JOIN daily d ON b.scope = 'project' AND d.project = b.scope_id
     )`,
    params: [
      budgets.map((b) => b.id),
      budgets.map((b) => b.scope),
      budgets.map((b) => b.scope_id),
      budgets.map((b) => b.start),
      budgets.map((b) => b.end),
      from,
      to,
      budgets.map((b) => b.basis),
    ],
  };
}

/** The rows of `matched` inside their budget's own window. */
const inWindowSql = `day >= (starts AT TIME ZONE 'UTC')::date AND day < (ends AT TIME ZONE 'UTC')::date`;

/**
 * Derived spend of many budgets in one statement over matchedRollupSql's rows, each budget summing
 * the rows of its window. USD is rounded to a micro-dollar (costs are double precision), so every
 * path reads the same.
 */
export async function deriveSpend(db: Db, budgets: readonly SpendQuery[]): Promise<Map<string, Spend>> {
  const spend = new Map<string, Spend>(budgets.map((b) => [b.id, { usd: 0, tokens: 0, runs: 0, unpriced_runs: 0 }]));
  if (budgets.length === 0) return spend;
  if (budgets.length <= FILTERED_AGGREGATE_MAX) {
    return deriveFewSpends(
      db,
      budgets,
      new Date(Math.min(...budgets.map((b) => b.start.getTime()))),
      new Date(Math.max(...budgets.map((b) => b.end.getTime()))),
    );
  }
  const matched = matchedRollupSql(budgets);
  const { rows } = await db.query<{ id: string; usd: number | null; tokens: number; runs: number; unpriced_runs: number }>(
    `${matched.sql}
     SELECT id, coalesce(sum(usd), 0) + CASE WHEN min(basis) = 'list' THEN coalesce(sum(shadow), 0) ELSE 0 END AS usd, coalesce(sum(tokens), 0)::bigint AS tokens, coalesce(sum(runs), 0)::int AS runs,
            coalesce(sum(unpriced), 0)::int AS unpriced_runs
       FROM matched
      WHERE ${inWindowSql}
      GROUP BY id`,
    matched.params,
  );
  for (const row of rows)
    spend.set(row.id, { usd: roundUsd(row.usd ?? 0), tokens: row.tokens, runs: row.runs, unpriced_runs: row.unpriced_runs });
  return spend;
}

/** One UTC day of a budget's window: its billed USD, its subscription runs' shadow USD and its tokens (not cumulative). */
export interface SpendDay {
  day: string;
  billed: number;
  shadow: number;
  tokens: number;
}

/**
 * The days of each budget's window that had usage in its scope, in one statement over the same
 * rows as deriveSpend (so a budget's days add up to its derived spend), by budget id, day ascending.
 */
export async function dailySpendOf(db: Db, budgets: readonly SpendQuery[]): Promise<Map<string, SpendDay[]>> {
  const days = new Map<string, SpendDay[]>(budgets.map((b) => [b.id, []]));
  if (budgets.length === 0) return days;
  const matched = matchedRollupSql(budgets);
  const { rows } = await db.query<{ id: string; day: string; billed: number; shadow: number; tokens: number }>(
    `${matched.sql}
     SELECT id, to_char(day, 'YYYY-MM-DD') AS day, coalesce(sum(usd), 0) AS billed, coalesce(sum(shadow), 0) AS shadow, coalesce(sum(tokens), 0)::float8 AS tokens
       FROM matched
      WHERE ${inWindowSql}
      GROUP BY id, day HAVING sum(runs) <> 0
      ORDER BY id, day`,
    matched.params,
  );
  for (const row of rows)
    days.get(row.id)!.push({ day: row.day, billed: roundUsd(row.billed), shadow: roundUsd(row.shadow), tokens: Number(row.tokens) });
  return days;
}

/** The joins runInScopeSql reads: the run's task (t) and its agent's profile (ap). */
const scopeJoinsSql = `LEFT JOIN tasks t ON t.id = r.task_id LEFT JOIN agent_profiles ap ON ap.agent_id = ${runAgentSql}`;

/** A run (r) inside a budget's scope given as SQL (scope, scope_id), by the attribution of derived spend. */
const runInScopeSql = (scope: string, scopeId: string) =>
  `(${scope} = 'fleet' OR (${scope} = 'agent' AND ${runAgentSql} = ${scopeId}) OR (${scope} = 'department' AND ap.department_id = ${scopeId})
    OR (${scope} = 'project' AND t.project_id::text = ${scopeId}))`;

/** An unpriced run as a budget's ledger lists it. */
export interface UnpricedRun {
  id: string;
  workflow_type: string;
  agent_id: string | null;
  model_id: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  usage_at: Date;
}

/**
 * The unpriced runs (tokens, no cost) that a budget's period counts, by the same attribution as its
 * derived spend, newest first, at most `limit`; `unpriced_runs` of the spend is their full number.
 */
export async function unpricedRunsOf(
  db: Db,
  budget: Pick<SpendQuery, 'scope' | 'scope_id'>,
  window: { start: Date; end: Date },
  limit: number,
): Promise<UnpricedRun[]> {
  const { rows } = await db.query<UnpricedRun>(
    `SELECT r.id, r.workflow_type, ${runAgentSql} AS agent_id, r.model_id, r.input_tokens, r.output_tokens, ${usageAtSql} AS usage_at
       FROM workflow_runs r ${scopeJoinsSql}
      WHERE ${usageAtSql} >= $1 AND ${usageAtSql} < $2 AND ${unpricedRunSql} AND ${runInScopeSql('$3', '$4')}
      ORDER BY ${usageAtSql} DESC, r.id LIMIT $5`,
    [window.start, window.end, budget.scope, budget.scope_id, limit],
  );
  return rows;
}

/** What live runs hold back from a budget: the part of their routes' expected spend they have not reported. */
export interface Reservation {
  usd: number;
  tokens: number;
}

/** Statuses of runs that are on their way or working: what reserves, and what a hard stop cancels. */
export const inFlightStatuses = runStatusGroups.inFlight;

/**
 * The reservations of live runs in each budget's scope, by the same attribution as derived spend,
 * in one statement: per run, its route's expected_cost_usd and expected_tokens less what it has
 * reported (never below zero). Periods do not apply: a live run reserves until it ends. A run of a
 * subscription (its own mark, else its agent's) reserves no USD in a budget of basis billed.
 */
export async function reservationsOf(
  db: Db,
  budgets: ReadonlyArray<Pick<SpendQuery, 'id' | 'scope' | 'scope_id' | 'basis'>>,
): Promise<Map<string, Reservation>> {
  const reserved = new Map<string, Reservation>(budgets.map((b) => [b.id, { usd: 0, tokens: 0 }]));
  if (budgets.length === 0) return reserved;
  const { rows } = await db.query<{ id: string; usd: number; tokens: number }>(
    `SELECT b.id,
            coalesce(sum(CASE WHEN b.basis = 'billed' AND coalesce(r.billing, ap.billing) = 'subscription' THEN 0
                              ELSE greatest(coalesce(w.expected_cost_usd, 0) - coalesce(r.cost_estimate, 0), 0) END), 0) AS usd,
            coalesce(sum(greatest(coalesce(w.expected_tokens, 0) - ${runTokensSql}, 0)), 0)::bigint AS tokens
       FROM unnest($1::uuid[], $2::text[], $3::text[], $5::text[]) AS b(id, scope, scope_id, basis)
       JOIN workflow_runs r ON r.status = ANY($4::text[])
       JOIN workflow_agent_routing w ON w.workflow_type = r.workflow_type AND (w.expected_cost_usd IS NOT NULL OR w.expected_tokens IS NOT NULL)
       ${scopeJoinsSql}
      WHERE ${runInScopeSql('b.scope', 'b.scope_id')}
      GROUP BY b.id`,
    [budgets.map((b) => b.id), budgets.map((b) => b.scope), budgets.map((b) => b.scope_id), inFlightStatuses, budgets.map((b) => b.basis)],
  );
  for (const row of rows) reserved.set(row.id, { usd: roundUsd(row.usd), tokens: row.tokens });
  return reserved;
}
