import * as z from 'zod';
import { parseQuery } from '../query-params';
import type { Db, Deps } from '../ports';
import { answeringValidation, degradable } from './availability';
import { addDays, isoDay, roundUsd, runAgentSql, unpricedOf, usageAtSql, type UnpricedUsage } from './usage';
import { rollupTotalsSql, usageRollupSql } from './usage-rollup';
import { costWindow, windowDaysSchema, type CostWindow } from './window';

export const costSummaryQuerySchema = z.object({ days: windowDaysSchema }).loose();

export interface DayBucket {
  date: string;
  cost: number;
  runs: number;
  tokens: { input: number; output: number };
}

interface DayRow {
  day: string;
  cost: number | null;
  subscription_cost: number | null;
  runs: number;
  input: number;
  output: number;
  unpriced_runs: number;
  unpriced_input: number;
  unpriced_output: number;
}

/**
 * Daily billed cost, run and token totals over the window, one row per UTC day that had runs, and
 * the window's unpriced usage and subscription (shadow) cost, from the usage rollup.
 */
export async function dailyUsage(
  db: Db,
  window: CostWindow,
): Promise<{ byDay: Map<string, DayBucket>; unpriced: UnpricedUsage; subscriptionCost: number }> {
  const { rows } = await db.query<DayRow>(
    `SELECT to_char(u.day, 'YYYY-MM-DD') AS day, ${rollupTotalsSql}
       FROM ${usageRollupSql('$1', '$2')} u
      GROUP BY u.day HAVING sum(u.runs) <> 0`,
    [window.start, window.end],
  );
  const byDay = new Map(
    rows.map((row) => [
      row.day,
      { date: row.day, cost: roundUsd(row.cost ?? 0), runs: row.runs, tokens: { input: row.input, output: row.output } },
    ]),
  );
  return {
    byDay,
    unpriced: unpricedOf(rows),
    subscriptionCost: roundUsd(rows.reduce((sum, row) => sum + (row.subscription_cost ?? 0), 0)),
  };
}

/**
 * GET /api/costs/summary: daily totals for the window (every day listed, zero when idle), today's
 * totals, the mean daily cost across the window's buckets, the window total and its costliest run.
 * Costs are billed costs; subscription runs' shadow cost is answered apart as subscription_cost
 * (and their runs and tokens still count), and top_run is the costliest billed run.
 */
export async function getCostSummary(deps: Pick<Deps, 'storage' | 'clock'>, query: unknown) {
  return answeringValidation(async () => {
    const { days } = parseQuery(costSummaryQuerySchema, query);
    const now = deps.clock.now();
    const timestamp = now.toISOString();
    return degradable(
      deps.storage,
      async (db) => {
        const window = costWindow(now, days);
        const [{ byDay, unpriced, subscriptionCost }, top] = await Promise.all([
          dailyUsage(db, window),
          db.query<{ id: string; workflow_type: string; owner_agent_id: string | null; status: string; cost: number }>(
            `SELECT r.id, r.workflow_type, ${runAgentSql} AS owner_agent_id, r.status, r.cost_estimate AS cost
               FROM workflow_runs r
              WHERE ${usageAtSql} >= $1 AND ${usageAtSql} < $2 AND r.cost_estimate IS NOT NULL AND r.billing IS DISTINCT FROM 'subscription'
              ORDER BY r.cost_estimate DESC, r.id LIMIT 1`,
            [window.start, window.end],
          ),
        ]);
        const buckets: DayBucket[] = [];
        for (let i = 0; i < days; i++) {
          const date = isoDay(addDays(window.start, i));
          buckets.push(byDay.get(date) ?? { date, cost: 0, runs: 0, tokens: { input: 0, output: 0 } });
        }
        const today = buckets[buckets.length - 1]!;
        const total = roundUsd(buckets.reduce((sum, b) => sum + b.cost, 0));
        return {
          available: true as const,
          window_days: days,
          currency: 'USD',
          today: { cost: today.cost, tokens: today.tokens, runs: today.runs },
          days: buckets,
          avg_daily_7d: roundUsd(total / buckets.length),
          total_window: total,
          subscription_cost: subscriptionCost,
          ...unpriced,
          top_run: top.rows[0] ?? null,
          timestamp,
        };
      },
      { window_days: days, timestamp },
    );
  });
}
