import * as z from 'zod';
import { OPERATOR_ACTOR } from '../actors';
import { recordChanges } from '../audit/record-change';
import type { Deps } from '../ports';
import { requireDb } from '../storage';
import { parseInput } from '../validation';
import { runColumnsOf, type WorkflowRun } from '../workflows/run';
import { runEvent } from '../workflows/run-store';
import { priceHistories } from './price-book';
import type { BillingMode } from '../ports';
import { costAt, priceAt } from './pricing';
import { roundUsd, runAgentSql, unpricedRunSql, usageAtSql } from './usage';

const instantSchema = z
  .union([z.iso.date(), z.iso.datetime({ offset: true })], { message: 'must be a day (YYYY-MM-DD) or an ISO 8601 timestamp' })
  .transform((v) => new Date(v.length === 10 ? `${v}T00:00:00Z` : v));

export const repriceSchema = z
  .strictObject({
    from: instantSchema,
    to: instantSchema,
    actor: z.string().trim().min(1, 'must not be empty').max(200).default(OPERATOR_ACTOR),
    /** Answer what a reprice would change, and by how much, without changing anything (no lock, audit row or event). */
    dry_run: z.boolean({ message: 'must be true or false' }).default(false),
  })
  .refine((w) => w.to.getTime() > w.from.getTime(), { path: ['to'], message: 'must be after from' });

export const repriceAnswerSchema = z.object({
  from: z.string(),
  to: z.string(),
  /** Runs in the window the table may price: priced by it before, or unpriced. */
  examined: z.number().int(),
  /** Of those, the runs whose cost or billing mode changed (one audit row and run-updated event each). */
  changed: z.number().int(),
  /** Runs in the window whose agent reported its own cost: never repriced. */
  reported_by_agent: z.number().int(),
  /** Runs the table priced before but has no price for now: their cost is kept, never erased. */
  without_price: z.number().int(),
  /** A preview: nothing was changed. */
  dry_run: z.boolean(),
  /** The changed runs' cost before and after, summed (USD; an unpriced run's before counts 0, and unpriced_before counts it). */
  cost_before: z.number(),
  cost_after: z.number(),
  /** Of the changed runs, those that had no cost before (unpriced until now). */
  unpriced_before: z.number().int(),
  /** The changed runs with the largest changes first, at most REPRICE_CHANGES_LISTED. */
  changes: z.array(
    z.object({
      id: z.string(),
      workflow_type: z.string(),
      model_id: z.string(),
      cost_before: z.number().nullable(),
      cost_after: z.number(),
      billing_before: z.string().nullable(),
      billing_after: z.string(),
    }),
  ),
});
export type RepriceAnswer = z.infer<typeof repriceAnswerSchema>;

/** Runs are read, priced and written in pages of this many, all in one transaction. */
const PAGE = 2000;
/** How many changed runs an answer lists (the largest changes). */
export const REPRICE_CHANGES_LISTED = 50;

type Candidate = WorkflowRun & { usage_at: Date; agent_billing: BillingMode | null };

/**
 * POST /api/costs/reprice {from, to}: recomputes cost_estimate (and the billing mode) of the runs
 * whose usage falls in [from, to) that the price table priced, or could not price, at the price in
 * effect on each run's usage day, from the table in effect now. A cost an agent
 * reported is never touched. All in one transaction, the runs locked as they are read, so a usage
 * report that races a reprice waits for it and is then priced by the same table. With dry_run the
 * same runs are read and priced, unlocked, and nothing is written: the answer is the preview.
 */
export async function repriceRuns(deps: Deps, body: unknown): Promise<RepriceAnswer> {
  const { from, to, actor, dry_run } = parseInput(repriceSchema, body ?? {}, 'reprice');
  const db = requireDb(deps.storage);
  return db.transaction(async (tx) => {
    const answer: RepriceAnswer = {
      from: from.toISOString(),
      to: to.toISOString(),
      examined: 0,
      changed: 0,
      reported_by_agent: 0,
      without_price: 0,
      dry_run,
      cost_before: 0,
      cost_after: 0,
      unpriced_before: 0,
      changes: [],
    };
    let changes: RepriceAnswer['changes'] = [];
    const { rows: reported } = await tx.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM workflow_runs r WHERE ${usageAtSql} >= $1 AND ${usageAtSql} < $2 AND r.cost_source = 'reported'`,
      [from, to],
    );
    answer.reported_by_agent = reported[0]?.n ?? 0;
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const { rows } = await tx.query<Candidate>(
        `SELECT ${runColumnsOf('r')}, ${usageAtSql} AS usage_at, ap.billing AS agent_billing
           FROM workflow_runs r LEFT JOIN agent_profiles ap ON ap.agent_id = ${runAgentSql}
          WHERE ${usageAtSql} >= $1 AND ${usageAtSql} < $2 AND r.model_id IS NOT NULL AND r.id > $3
            AND (r.cost_source = 'table' OR (r.cost_source IS NULL AND ${unpricedRunSql}))
          ORDER BY r.id LIMIT ${PAGE}${dry_run ? '' : ' FOR UPDATE OF r'}`,
        [from, to, after],
      );
      if (rows.length === 0) break;
      after = rows[rows.length - 1]!.id;
      answer.examined += rows.length;
      const histories = await priceHistories(deps, tx, [...new Set(rows.map((r) => r.model_id!))]);
      const updates: Array<{ id: string; cost: number; billing: BillingMode }> = [];
      for (const run of rows) {
        const price = priceAt(histories[run.model_id!], run.usage_at);
        const cost = costAt(price, run);
        if (cost === null) {
          if (run.cost_source === 'table') answer.without_price++;
          continue;
        }
        const billing = run.agent_billing ?? price?.billing ?? 'metered';
        if (cost !== run.cost_estimate || billing !== run.billing) updates.push({ id: run.id, cost, billing });
      }
      if (updates.length === 0) continue;
      const before = new Map(rows.map(({ usage_at: _at, agent_billing: _billing, ...run }) => [run.id, run]));
      for (const u of updates) {
        const run = before.get(u.id)!;
        answer.cost_before += run.cost_estimate ?? 0;
        answer.cost_after += u.cost;
        if (run.cost_estimate === null) answer.unpriced_before++;
        changes.push({
          id: u.id,
          workflow_type: run.workflow_type,
          model_id: run.model_id!,
          cost_before: run.cost_estimate,
          cost_after: u.cost,
          billing_before: run.billing,
          billing_after: u.billing,
        });
      }
      changes = largestChanges(changes);
      if (dry_run) {
        answer.changed += updates.length;
        continue;
      }
      const { rows: changed } = await tx.query<WorkflowRun>(
        `UPDATE workflow_runs r SET cost_estimate = u.cost, cost_source = 'table', billing = u.billing, currency = coalesce(r.currency, 'USD'), updated_at = $4
           FROM unnest($1::uuid[], $2::float8[], $3::text[]) AS u(id, cost, billing)
          WHERE r.id = u.id RETURNING ${runColumnsOf('r')}`,
        [updates.map((u) => u.id), updates.map((u) => u.cost), updates.map((u) => u.billing), deps.clock.now()],
      );
      await recordChanges(
        deps,
        tx,
        changed.map((run) => ({
          actor,
          action: 'repriced',
          entityType: 'workflow_run',
          entityId: run.id,
          taskId: run.task_id,
          oldValue: before.get(run.id),
          newValue: run,
          event: runEvent('repriced', run),
        })),
      );
      answer.changed += changed.length;
    }
    return { ...answer, cost_before: roundUsd(answer.cost_before), cost_after: roundUsd(answer.cost_after), changes };
  });
}

/** The REPRICE_CHANGES_LISTED largest changes (by how much the cost moves), largest first, then by id. */
function largestChanges(changes: RepriceAnswer['changes']): RepriceAnswer['changes'] {
  const size = (c: RepriceAnswer['changes'][number]) => Math.abs(c.cost_after - (c.cost_before ?? 0));
  return changes.sort((a, b) => size(b) - size(a) || (a.id < b.id ? -1 : 1)).slice(0, REPRICE_CHANGES_LISTED);
}
