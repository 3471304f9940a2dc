import type { Db } from '../ports';
import { runAgentSql, runTokensSql, usageAtSql, usageDaySql } from '../costs/usage';
import type { BudgetScope } from './budget';
import type { Spend } from './status';

export interface SpendQuery {
  id: string;
  scope: BudgetScope;
  scope_id: string | null;
  start: Date;
  end: Date;
}

/**
 * Derived spend of many budgets in one statement. Runs of the union of the budgets' windows are
 * first reduced to one row per (UTC day, agent, project) — periods are whole UTC days, so no
 * precision is lost — and each budget then sums the rows of its scope by equality joins
 * (agent, the agent's department through agent_profiles, the task's project, or everything).
 */
export async function deriveSpend(db: Db, budgets: readonly SpendQuery[]): Promise<Map<string, Spend>> {
  const spend = new Map<string, Spend>(budgets.map((b) => [b.id, { usd: 0, tokens: 0, runs: 0 }]));
  if (budgets.length === 0) return spend;
  const from = new Date(Math.min(...budgets.map((b) => b.start.getTime())));
  const to = new Date(Math.max(...budgets.map((b) => b.end.getTime())));
  const { rows } = await db.query<{ id: string; usd: number | null; tokens: number; runs: number }>(
    `WITH b AS (
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::timestamptz[], $5::timestamptz[])
         AS b(id, scope, scope_id, starts, ends)
     ), daily AS (
       SELECT ${usageDaySql} AS day, ${runAgentSql} AS agent, t.project_id::text AS project,
              sum(r.cost_estimate) AS usd, sum(${runTokensSql}) AS tokens, count(*) AS runs
         FROM workflow_runs r LEFT JOIN tasks t ON t.id = r.task_id
        WHERE ${usageAtSql} >= $6 AND ${usageAtSql} < $7
        GROUP BY 1, 2, 3
     ), matched AS (
       SELECT b.id, b.starts, b.ends, d.* FROM b JOIN daily d ON b.scope = 'fleet'
       UNION ALL
       SELECT b.id, b.starts, b.ends, d.* FROM b JOIN daily d ON b.scope = 'agent' AND d.agent = b.scope_id
       UNION ALL
       SELECT b.id, b.starts, b.ends, d.* FROM b
         JOIN agent_profiles ap ON b.scope = 'department' AND ap.department_id = b.scope_id
         JOIN daily d ON d.agent = ap.agent_id
       UNION ALL
       SELECT b.id, b.starts, b.ends, d.* FROM b JOIN daily d ON b.scope = 'project' AND d.project = b.scope_id
     )
     SELECT id, sum(usd) AS usd, coalesce(sum(tokens), 0)::bigint AS tokens, coalesce(sum(runs), 0)::int AS runs
       FROM matched
      WHERE day >= (starts AT TIME ZONE 'UTC')::date AND day < (ends AT TIME ZONE 'UTC')::date
      GROUP BY id`,
    [
      budgets.map((b) => b.id),
      budgets.map((b) => b.scope),
      budgets.map((b) => b.scope_id),
      budgets.map((b) => b.start),
      budgets.map((b) => b.end),
      from,
      to,
    ],
  );
  for (const row of rows) spend.set(row.id, { usd: row.usd ?? 0, tokens: row.tokens, runs: row.runs });
  return spend;
}
