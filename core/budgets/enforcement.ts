import type { Db, EventBus } from '../ports';
import { budgetColumns, type BudgetAction, type BudgetRow, type Expectation } from './budget';
import { evaluateBudgets, recordLedgerEvents, type EvaluatedBudget } from './evaluation';
import { budgetInChain, type ScopeChain } from './scope-chain';
import { inFlightStatuses } from './spend';

/** What the budgets at or over their cap in a chain call for, strongest first. */
export type Enforcement = 'stop' | 'hold' | 'warn' | 'pass';

const enforcementOf: Record<BudgetAction, Exclude<Enforcement, 'pass'>> = {
  hard_stop: 'stop',
  pause_new_runs: 'hold',
  warn: 'warn',
};
const strength: Record<Enforcement, number> = { stop: 3, hold: 2, warn: 1, pass: 0 };

export interface ChainVerdict {
  enforcement: Enforcement;
  /** The budgets at or over their cap that decide the enforcement (the strongest action's). */
  budgets: EvaluatedBudget[];
}

/** Every active budget with its spend for the current period, in one statement; due ledger events are appended. */
export async function evaluateActiveBudgets(db: Db, events: EventBus, now: Date, filter?: ScopeChain): Promise<EvaluatedBudget[]> {
  const { rows } = filter
    ? await db.query<BudgetRow>(
        `SELECT ${budgetColumns} FROM budgets
          WHERE active AND (scope = 'fleet' OR (scope = 'agent' AND scope_id = ANY($1::text[]))
                OR (scope = 'department' AND scope_id = $2) OR (scope = 'project' AND scope_id = $3))`,
        [filter.agents, filter.departmentId, filter.projectId],
      )
    : await db.query<BudgetRow>(`SELECT ${budgetColumns} FROM budgets WHERE active`);
  const evaluated = await evaluateBudgets(db, rows, now);
  await recordLedgerEvents(db, events, evaluated, now);
  return evaluated;
}

/** Spec 02 "Dispatcher reaction to budget state" for one chain: hard_stop beats pause_new_runs beats warn. */
export function enforcementFor(evaluated: readonly EvaluatedBudget[], chain: ScopeChain): ChainVerdict {
  let verdict: ChainVerdict = { enforcement: 'pass', budgets: [] };
  for (const e of evaluated) {
    if (!e.budget.active || !e.evaluation.atOrOver || !budgetInChain(e.budget, chain)) continue;
    const enforcement = enforcementOf[e.budget.action_on_exceed];
    if (strength[enforcement] > strength[verdict.enforcement]) verdict = { enforcement, budgets: [e] };
    else if (enforcement === verdict.enforcement) verdict.budgets.push(e);
  }
  return verdict;
}

/** The USD a run's expectation takes in a budget: none in one of basis billed when the run's agent bills by subscription. */
export function expectedUsdIn(budget: Pick<BudgetRow, 'basis'>, expected: Expectation): number {
  return expected.subscription && budget.basis === 'billed' ? 0 : (expected.usd ?? 0);
}

/**
 * The active pause_new_runs and hard_stop budgets of a chain that a run expecting `expected` does
 * not fit in: spend + what live runs reserve + the expectation would pass the cap.
 * `reservedOf` may answer fresher reservations than the evaluation's (the tick's batch view).
 */
export function budgetsWithoutRoom(
  evaluated: readonly EvaluatedBudget[],
  chain: ScopeChain,
  expected: Expectation,
  reservedOf: (e: EvaluatedBudget) => { usd: number; tokens: number } = (e) => e.reserved,
): EvaluatedBudget[] {
  return evaluated.filter((e) => {
    if (!e.budget.active || e.budget.action_on_exceed === 'warn' || !budgetInChain(e.budget, chain)) return false;
    const held = reservedOf(e);
    return e.budget.cap_usd !== null
      ? e.spend.usd + held.usd + expectedUsdIn(e.budget, expected) > e.budget.cap_usd + 1e-9
      : e.spend.tokens + held.tokens + (expected.tokens ?? 0) > e.budget.cap_tokens!;
  });
}

export { inFlightStatuses } from './spend';

/** Ids of the in-flight runs inside a budget's scope (the same attribution as derived spend). */
export async function inFlightRunsInScope(db: Db, budget: Pick<BudgetRow, 'scope' | 'scope_id'>): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT r.id FROM workflow_runs r
       LEFT JOIN tasks t ON t.id = r.task_id
       LEFT JOIN agent_profiles ap ON ap.agent_id = coalesce(r.owner_agent_id, r.target_agent_id)
      WHERE r.status = ANY($1::text[])
        AND ($2 = 'fleet'
          OR ($2 = 'agent' AND $3 IN (r.owner_agent_id, r.target_agent_id))
          OR ($2 = 'department' AND ap.department_id = $3)
          OR ($2 = 'project' AND t.project_id::text = $3))`,
    [inFlightStatuses, budget.scope, budget.scope_id],
  );
  return rows.map((r) => r.id);
}
