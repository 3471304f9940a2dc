import type { Db } from '../ports';
import { enforcementFor, evaluateActiveBudgets } from './enforcement';
import type { ScopeChain } from './scope-chain';

export interface BudgetBlock {
  action: 'pause_new_runs' | 'hard_stop';
  budgets: Array<Record<string, unknown>>;
}

/**
 * The headroom probe of dispatch-class actions: evaluates only the active budgets of the chain the
 * dispatcher would enforce, and answers the block a dispatch would meet (hard_stop over
 * pause_new_runs), or undefined when the run would pass (warn budgets never block).
 */
export async function probeHeadroom(db: Db, chain: ScopeChain, now: Date): Promise<BudgetBlock | undefined> {
  const evaluated = await evaluateActiveBudgets(db, now, chain);
  const verdict = enforcementFor(evaluated, chain);
  if (verdict.enforcement !== 'stop' && verdict.enforcement !== 'hold') return undefined;
  return {
    action: verdict.enforcement === 'stop' ? 'hard_stop' : 'pause_new_runs',
    budgets: verdict.budgets.map(({ budget, window, evaluation }) => ({
      name: budget.name,
      scope: budget.scope,
      period_key: window.key,
      [evaluation.unit === 'usd' ? 'spend_usd' : 'spend_tokens']: evaluation.spent,
      [evaluation.unit === 'usd' ? 'cap_usd' : 'cap_tokens']: evaluation.cap,
      pct_of_cap: evaluation.pct_of_cap,
    })),
  };
}
