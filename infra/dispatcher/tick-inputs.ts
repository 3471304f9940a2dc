import { budgetDispatchGate } from '../../core/budgets/dispatch-gate';
import type { BudgetGate } from '../../core/workflows/budget-gate';
import type { TickInputs } from '../../core/workflows/dispatcher';
import type { Config } from '../config';
import { recordTick } from '../metrics/metrics';

/**
 * The one place that builds a tick's inputs for every caller (timer, Lambda, API, CLI).
 * The budgets module's gate enforces budgets on every tick (it fails open without a database).
 */
export function dispatcherBudgetGate(): BudgetGate {
  return budgetDispatchGate;
}

export function tickInputs(cfg: Pick<Config, 'taskServerUrl'>, source: string): TickInputs {
  return { budgetGate: dispatcherBudgetGate(), claimUrlBase: cfg.taskServerUrl, source, onSummary: recordTick };
}
