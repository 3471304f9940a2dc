import * as z from 'zod';
import { parseQuery } from '../query-params';
import { answeringValidation, degradable } from '../costs/availability';
import { BudgetNotFoundError, ValidationError } from '../errors';
import type { Db, Deps, EventBus } from '../ports';
import { uuidSchema } from '../validation';
import { budgetColumns, type BudgetRow } from './budget';
import { evaluateBudgets, recordLedgerEvents, viewOf, type EvaluatedBudget } from './evaluation';
import { periodFromKey, periodKeyForms, periodWindow } from './periods';
import { unpricedRunsOf } from './spend';

export const LEDGER_EVENT_LIMIT = 100;

export async function findBudget(db: Db, id: string, lock = false): Promise<BudgetRow | undefined> {
  const { rows } = await db.query<BudgetRow>(`SELECT ${budgetColumns} FROM budgets WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0];
}

/**
 * GET /api/budgets: every budget (active first, then oldest first) with its derived current period,
 * spend, percentage and status; evaluating appends any ledger event now due.
 */
export async function listBudgets(deps: Pick<Deps, 'storage' | 'clock' | 'events'>) {
  const now = deps.clock.now();
  return degradable(deps.storage, async (db) => {
    const evaluated = await evaluateEveryBudget(db, deps.events, now);
    return { available: true as const, budgets: evaluated.map(viewOf), timestamp: now.toISOString() };
  });
}

/** Every budget, active first, then oldest first, evaluated for its period containing `now`; ledger events now due are appended. */
export async function evaluateEveryBudget(db: Db, events: EventBus, now: Date): Promise<EvaluatedBudget[]> {
  const { rows } = await db.query<BudgetRow>(`SELECT ${budgetColumns} FROM budgets ORDER BY active DESC, created_at, id`);
  const evaluated = await evaluateBudgets(db, rows, now);
  await recordLedgerEvents(db, events, evaluated, now);
  return evaluated;
}

export const ledgerQuerySchema = z.object({ period: z.string().trim().min(1).default('current') }).loose();

/**
 * GET /api/budgets/:id/ledger?period=current: the budget, the period's window and derived spend,
 * and the budget's ledger events (all periods, newest first, at most 100). `period` may also be a
 * period key of the budget's own form (YYYY-MM for monthly), for the tool server's ledger lookups.
 */
export async function getBudgetLedger(deps: Pick<Deps, 'storage' | 'clock' | 'events'>, rawId: unknown, query: unknown) {
  if (!uuidSchema.safeParse(rawId).success) throw new BudgetNotFoundError();
  const id = rawId as string;
  const now = deps.clock.now();
  return answeringValidation(async () => {
    const { period } = parseQuery(ledgerQuerySchema, query);
    return degradable(deps.storage, async (db) => {
      const budget = await findBudget(db, id);
      if (!budget) throw new BudgetNotFoundError();
      const current = periodWindow(budget.period, now);
      const window = period === 'current' ? current : periodFromKey(budget.period, period);
      if (!window) {
        const message = `must be current or a ${budget.period} period key (${periodKeyForms[budget.period]})`;
        throw new ValidationError(message, [{ path: 'period', message }]);
      }
      const [evaluated] = await evaluateBudgets(db, [budget], now, () => window);
      if (window.key === current.key) await recordLedgerEvents(db, deps.events, [evaluated!], now);
      const [{ rows: events }, unpricedRuns] = await Promise.all([
        db.query(
          `SELECT id, budget_id, period_key, event_kind, detail, created_at FROM budget_events
            WHERE budget_id = $1 ORDER BY created_at DESC, id DESC LIMIT ${LEDGER_EVENT_LIMIT}`,
          [id],
        ),
        unpricedRunsOf(db, budget, window, LEDGER_EVENT_LIMIT),
      ]);
      const { evaluation, spend } = evaluated!;
      return {
        available: true,
        budget: {
          id: budget.id,
          name: budget.name,
          scope: budget.scope,
          scope_id: budget.scope_id,
          period: budget.period,
          cap_usd: budget.cap_usd,
          cap_tokens: budget.cap_tokens,
          action_on_exceed: budget.action_on_exceed,
          active: budget.active,
          basis: budget.basis,
        },
        period_key: window.key,
        window_start: window.start.toISOString(),
        window_end: window.end.toISOString(),
        spend,
        pct_of_cap: evaluation.pct_of_cap,
        status: evaluation.status,
        events,
        unpriced_runs: unpricedRuns,
        timestamp: now.toISOString(),
      };
    });
  });
}
