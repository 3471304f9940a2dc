import type { Db, EventBus } from '../ports';
import type { Expectation } from './budget';
import { budgetsWithoutRoom, enforcementFor, evaluateActiveBudgets } from './enforcement';
import type { EvaluatedBudget } from './evaluation';
import { scopeChainOfRun, type ScopeChain } from './scope-chain';

export interface BudgetBlock {
  action: 'pause_new_runs' | 'hard_stop';
  budgets: Array<Record<string, unknown>>;
}

/**
 * The headroom probe of dispatch-class actions: evaluates only the active budgets of the chain the
 * dispatcher would enforce, and answers the block a dispatch would meet (hard_stop over
 * pause_new_runs), or undefined when the run would pass (warn budgets never block).
 */
export async function probeHeadroom(
  db: Db,
  events: EventBus,
  chain: ScopeChain,
  now: Date,
  expected: Expectation = { usd: null, tokens: null },
): Promise<BudgetBlock | undefined> {
  const evaluated = await evaluateActiveBudgets(db, events, now, chain);
  const verdict = enforcementFor(evaluated, chain);
  if (verdict.enforcement === 'stop' || verdict.enforcement === 'hold') {
    return { action: verdict.enforcement === 'stop' ? 'hard_stop' : 'pause_new_runs', budgets: blockingBudgets(verdict.budgets) };
  }
  // spend is under every cap, but live runs' reservations and this run's expectation may not fit; the tick would hold it
  const short = budgetsWithoutRoom(evaluated, chain, expected);
  return short.length ? { action: 'pause_new_runs', budgets: blockingBudgets(short) } : undefined;
}

/** The budgets that block or stop, as refusals name them: spend and cap in the budget's own unit. */
export function blockingBudgets(budgets: readonly EvaluatedBudget[]): Array<Record<string, unknown>> {
  return budgets.map(({ budget, window, evaluation }) => ({
    name: budget.name,
    scope: budget.scope,
    period_key: window.key,
    [evaluation.unit === 'usd' ? 'spend_usd' : 'spend_tokens']: evaluation.spent,
    [evaluation.unit === 'usd' ? 'cap_usd' : 'cap_tokens']: evaluation.cap,
    pct_of_cap: evaluation.pct_of_cap,
  }));
}

/**
 * A live run's budget check after it reported usage: the hard_stop budgets of its chain
 * at or over their cap, or undefined when none is (pause_new_runs and warn never stop a live run).
 * Due ledger events (hard_stopped once per period) are appended as by every evaluation.
 */
export async function hardStopOfRun(db: Db, events: EventBus, runId: string, now: Date): Promise<BudgetBlock | undefined> {
  const chain = await scopeChainOfRun(db, runId);
  if (!chain) return undefined;
  const verdict = enforcementFor(await evaluateActiveBudgets(db, events, now, chain), chain);
  return verdict.enforcement === 'stop' ? { action: 'hard_stop', budgets: blockingBudgets(verdict.budgets) } : undefined;
}
