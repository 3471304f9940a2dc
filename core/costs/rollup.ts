import * as z from 'zod';
import { parseQuery } from '../query-params';
import type { Deps } from '../ports';
import { answeringValidation, degradable } from './availability';
import { unpricedRunsOf } from '../budgets/spend';
import { roundUsd, UNASSIGNED, unpricedOf } from './usage';
import { rollupTotalsSql, runUsageRowsSql, usageRollupSql } from './usage-rollup';
import { costWindow, windowDaysSchema } from './window';

const groupings = ['agent', 'department', 'workflow_type', 'project', 'model'] as const;
export type RollupGrouping = (typeof groupings)[number];

/**
 * What a rollup groups by, and the SQL of each key (a run without one lands in "Unassigned"). The
 * usage rollup keeps no model: by model reads the window's runs (runUsageRowsSql) instead.
 */
export const rollupGroupings: Record<RollupGrouping, { key: string; join: string; fromRuns?: true }> = {
  agent: { key: "nullif(u.agent_id, '')", join: '' },
  department: { key: 'ap.department_id', join: 'LEFT JOIN agent_profiles ap ON ap.agent_id = u.agent_id' },
  workflow_type: { key: 'u.workflow_type', join: '' },
  project: { key: "nullif(u.project_id, '')", join: '' },
  model: { key: 'u.model_id', join: '', fromRuns: true },
};

export const costRollupQuerySchema = z
  .object({
    group_by: z.enum(groupings, { message: `must be one of ${groupings.join(', ')}` }).default('agent'),
    days: windowDaysSchema,
  })
  .loose();

interface Row {
  key: string | null;
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

interface Group {
  key: string;
  cost: number;
  runs: number;
  tokens: { input: number; output: number };
  series: Array<{ date: string; cost: number }>;
}

/** How many of the window's unpriced runs a rollup lists (newest first), so a reader can open them. */
export const UNPRICED_RUNS_LISTED = 20;

/**
 * GET /api/costs/rollup: totals per group over the window, each with its daily series (one point per
 * day that had runs, date ascending); groups by cost descending, then key. Costs are billed costs;
 * subscription runs' shadow cost is answered apart as subscription_cost. When the window
 * holds unpriced runs, the newest of them are listed (unpriced_run_list), read from the runs only then.
 */
export async function getCostRollup(deps: Pick<Deps, 'storage' | 'clock'>, query: unknown) {
  return answeringValidation(async () => {
    const { group_by, days } = parseQuery(costRollupQuerySchema, query);
    const now = deps.clock.now();
    const timestamp = now.toISOString();
    return degradable(
      deps.storage,
      async (db) => {
        const window = costWindow(now, days);
        const grouping = rollupGroupings[group_by];
        const { rows } = await db.query<Row>(
          `SELECT g.key, to_char(g.day, 'YYYY-MM-DD') AS day, g.cost, g.subscription_cost, g.runs, g.input, g.output, g.unpriced_runs, g.unpriced_input, g.unpriced_output FROM (
             SELECT ${grouping.key} AS key, u.day, ${rollupTotalsSql}
               FROM ${grouping.fromRuns ? runUsageRowsSql('$1', '$2') : usageRollupSql('$1', '$2')} u ${grouping.join}
              GROUP BY 1, 2 HAVING sum(u.runs) <> 0) g
            ORDER BY g.day`,
          [window.start, window.end],
        );
        const groups = new Map<string, Group>();
        let subscriptionCost = 0;
        for (const row of rows) {
          const key = row.key ?? UNASSIGNED;
          let group = groups.get(key);
          if (!group) {
            group = { key, cost: 0, runs: 0, tokens: { input: 0, output: 0 }, series: [] };
            groups.set(key, group);
          }
          const cost = row.cost ?? 0;
          group.cost += cost;
          subscriptionCost += row.subscription_cost ?? 0;
          group.runs += row.runs;
          group.tokens.input += row.input;
          group.tokens.output += row.output;
          const last = group.series[group.series.length - 1];
          // unkeyed runs and a key literally named Unassigned share one group, so their days merge
          if (last?.date === row.day) last.cost = roundUsd(last.cost + cost);
          else group.series.push({ date: row.day, cost: roundUsd(cost) });
        }
        const unpriced = unpricedOf(rows);
        const unpricedRuns =
          unpriced.unpriced_runs > 0 ? await unpricedRunsOf(db, { scope: 'fleet', scope_id: null }, window, UNPRICED_RUNS_LISTED) : [];
        const sorted = [...groups.values()]
          .map((g) => ({ ...g, cost: roundUsd(g.cost) }))
          .sort((a, b) => b.cost - a.cost || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
        return {
          available: true as const,
          group_by,
          window_days: days,
          currency: 'USD',
          group_count: sorted.length,
          groups: sorted,
          total_window: roundUsd(sorted.reduce((sum, g) => sum + g.cost, 0)),
          subscription_cost: roundUsd(subscriptionCost),
          ...unpriced,
          unpriced_run_list: unpricedRuns,
          timestamp,
        };
      },
      { group_by, window_days: days, timestamp },
    );
  });
}
