import * as z from 'zod';
import type { Db, EventBus } from '../ports';
import { budgetRowSchema, type BudgetRow } from './budget';
import { periodWindow, type PeriodWindow } from './periods';
import { deriveSpend, reservationsOf, type Reservation } from './spend';
import { budgetStatuses, evaluate, overCapEvent, spendSchema, type Evaluation, type LedgerEventKind, type Spend } from './status';

/** A budget as the API shows it: the row plus its derived period, spend, percentage and status. */
export const budgetViewSchema = budgetRowSchema.extend({
  period_key: z.string(),
  current_spend: spendSchema,
  /** What live runs in scope are expected to spend beyond what they reported; status ignores it. */
  reserved: z.object({ usd: z.number(), tokens: z.number() }),
  pct_of_cap: z.number(),
  status: z.enum(budgetStatuses),
});
export type BudgetView = z.infer<typeof budgetViewSchema>;

export interface EvaluatedBudget {
  budget: BudgetRow;
  window: PeriodWindow;
  spend: Spend;
  /** Live runs' unreported expected spend in scope; the dispatcher's fit check adds it to spend. */
  reserved: Reservation;
  evaluation: Evaluation;
}

/** Derives spend and status of each budget for the period containing `now` (or the given windows). */
export async function evaluateBudgets(
  db: Db,
  budgets: readonly BudgetRow[],
  now: Date,
  windowOf: (b: BudgetRow) => PeriodWindow = (b) => periodWindow(b.period, now),
): Promise<EvaluatedBudget[]> {
  const windows = budgets.map(windowOf);
  const queries = budgets.map((b, i) => ({
    id: b.id,
    scope: b.scope,
    scope_id: b.scope_id,
    basis: b.basis,
    start: windows[i]!.start,
    end: windows[i]!.end,
  }));
  const [spend, reserved] = await Promise.all([deriveSpend(db, queries), reservationsOf(db, queries)]);
  return budgets.map((budget, i) => {
    const s = spend.get(budget.id)!;
    return { budget, window: windows[i]!, spend: s, reserved: reserved.get(budget.id)!, evaluation: evaluate(budget, s) };
  });
}

export function viewOf(e: EvaluatedBudget): BudgetView {
  return {
    ...e.budget,
    period_key: e.window.key,
    current_spend: e.spend,
    reserved: e.reserved,
    pct_of_cap: e.evaluation.pct_of_cap,
    status: e.evaluation.status,
  };
}

/**
 * Appends the ledger events that the evaluations call for, each at most once per (budget, period,
 * kind) (the unique key decides): an active budget at or over its cap emits warned, paused or
 * hard_stopped by its action; an active budget back under its cap whose latest breach-or-recovery
 * event is a breach emits recovered (period rollover, a raised cap). An active USD-capped budget
 * whose period holds unpriced runs (tokens, no cost) emits unpriced_usage: its spend in
 * USD is then known to be short. Inactive budgets emit nothing.
 */
export async function recordLedgerEvents(db: Db, events: EventBus, evaluated: readonly EvaluatedBudget[], now: Date): Promise<void> {
  const due = evaluated.filter((e) => e.budget.active);
  if (due.length === 0) return;
  const detailOf = (e: EvaluatedBudget) =>
    JSON.stringify({
      [e.evaluation.unit === 'usd' ? 'spend_usd' : 'spend_tokens']: e.evaluation.spent,
      [e.evaluation.unit === 'usd' ? 'cap_usd' : 'cap_tokens']: e.evaluation.cap,
      pct_of_cap: e.evaluation.pct_of_cap,
      runs: e.spend.runs,
      unpriced_runs: e.spend.unpriced_runs,
    });
  const dueEvents: Array<{ e: EvaluatedBudget; kind: LedgerEventKind }> = due.map((e) => ({
    e,
    kind: e.evaluation.atOrOver ? overCapEvent[e.budget.action_on_exceed] : 'recovered',
  }));
  for (const e of due) if (e.evaluation.unit === 'usd' && e.spend.unpriced_runs > 0) dueEvents.push({ e, kind: 'unpriced_usage' });
  const kinds = dueEvents.map((x) => x.kind);
  const details = dueEvents.map((x) => detailOf(x.e));
  const byId = new Map(due.map((e) => [e.budget.id, e]));
  // the events commit with the rows: in the caller's transaction, else in one of their own
  const append = async (tx: Db) => {
    const { rows } = await tx.query<{ budget_id: string; period_key: string; event_kind: LedgerEventKind }>(
      `INSERT INTO budget_events (budget_id, period_key, event_kind, detail, created_at, updated_at)
       SELECT e.budget_id, e.period_key, e.kind, e.detail::jsonb, $5, $5
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[]) AS e(budget_id, period_key, kind, detail)
        WHERE e.kind <> 'recovered'
           OR (SELECT be.event_kind FROM budget_events be WHERE be.budget_id = e.budget_id AND be.event_kind <> 'unpriced_usage'
                ORDER BY be.created_at DESC, be.id DESC LIMIT 1) IN ('warned', 'paused', 'hard_stopped')
       ON CONFLICT (budget_id, period_key, event_kind) DO NOTHING
       RETURNING budget_id, period_key, event_kind`,
      [dueEvents.map((x) => x.e.budget.id), dueEvents.map((x) => x.e.window.key), kinds, details, now],
    );
    for (const row of rows) {
      if (row.event_kind === 'unpriced_usage') continue;
      const e = byId.get(row.budget_id)!;
      await events.publish(tx, budgetUpdatedEvent(e, row.event_kind));
    }
  };
  await (db.inTransaction ? append(db) : db.transaction(append));
}

/** budget-updated: a budget's status changed; the ledger event that says so names how. */
function budgetUpdatedEvent(e: EvaluatedBudget, kind: LedgerEventKind) {
  return {
    name: 'budget-updated',
    channel: 'stream' as const,
    payload: {
      budgetId: e.budget.id,
      name: e.budget.name,
      event_kind: kind,
      status: e.evaluation.status,
      period_key: e.window.key,
      pct_of_cap: e.evaluation.pct_of_cap,
      action_on_exceed: e.budget.action_on_exceed,
    },
  };
}
