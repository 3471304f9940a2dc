import type { Deps } from '../ports';
import { budgetColumns, type BudgetRow } from '../budgets/budget';
import { evaluateBudgets, viewOf } from '../budgets/evaluation';
import { requireDb } from '../storage';
import type { StuckReason } from '../workflows/recovery-rules';
import { sqlList } from '../sql-text';
import { stuckConditionSql } from '../workflows/run-queries';
import { runStatusGroups } from '../workflows/run-status';

/** What GET /api/metrics reads from the database at scrape time: the state of the fleet, not counters. */
export interface FleetGauges {
  runsByStatus: Record<string, number>;
  stuckRuns: Record<StuckReason, number>;
  budgetsByStatus: Record<string, number>;
  /** Id of the newest committed outbox event (0 when there is none). */
  newestEventId: number;
  /** Audit rows written since the last dispatcher pass, not yet in the search index (migration 1020). */
  auditSearchPending: number;
}

/**
 * Reads the gauges in five queries at once. Budgets are evaluated as GET /api/budgets evaluates them but
 * without recording ledger events: a scrape never writes.
 */
export async function readFleetGauges(deps: Pick<Deps, 'storage' | 'clock'>): Promise<FleetGauges> {
  const db = requireDb(deps.storage);
  const now = deps.clock.now();
  const reasons = Object.keys(stuckConditionSql) as StuckReason[];
  const [runs, stuck, budgets, newest, pending] = await Promise.all([
    db.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM workflow_runs GROUP BY status'),
    db.query<Record<StuckReason, number>>(
      `SELECT ${reasons.map((r) => `count(*) FILTER (WHERE ${stuckConditionSql[r]})::int AS ${r}`).join(', ')}
         FROM workflow_runs r LEFT JOIN workflow_agent_routing w ON w.workflow_type = r.workflow_type
        WHERE r.status IN ${sqlList(runStatusGroups.underway)}`,
      [now],
    ),
    db.query<BudgetRow>(`SELECT ${budgetColumns} FROM budgets WHERE active`),
    db.query<{ id: string }>('SELECT last_position::text AS id FROM event_outbox_watermark'),
    db.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_search_pending'),
  ]);
  const budgetsByStatus: Record<string, number> = {};
  for (const evaluated of await evaluateBudgets(db, budgets.rows, now)) {
    const { status } = viewOf(evaluated);
    budgetsByStatus[status] = (budgetsByStatus[status] ?? 0) + 1;
  }
  return {
    runsByStatus: Object.fromEntries(runs.rows.map((r) => [r.status, r.n])),
    stuckRuns: stuck.rows[0]!,
    budgetsByStatus,
    newestEventId: Number(newest.rows[0]!.id),
    auditSearchPending: pending.rows[0]!.n,
  };
}
