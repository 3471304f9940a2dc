import { passingBudgetGate, type BudgetGate } from '../../core/workflows/budget-gate';
import type { TickInputs } from '../../core/workflows/dispatcher';
import type { Config } from '../config';

/**
 * The one place that builds a tick's inputs for every caller (timer, Lambda, API, CLI).
 * The budgets module plugs its gate in here; until then every run passes.
 */
export function dispatcherBudgetGate(): BudgetGate {
  return passingBudgetGate;
}

export function tickInputs(cfg: Pick<Config, 'taskServerUrl'>, source: string): TickInputs {
  return { budgetGate: dispatcherBudgetGate(), claimUrlBase: cfg.taskServerUrl, source };
}
