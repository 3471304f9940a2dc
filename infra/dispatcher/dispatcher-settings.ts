import { budgetDispatchGate } from '../../core/budgets/dispatch-gate';
import type { DispatcherSettings } from '../../core/ports';
import type { Config } from '../config';
import { observations } from '../metrics/observations';

/**
 * Deps.dispatcher for this process, whoever ticks (timer, Lambda, API, CLI). The budgets module's
 * gate enforces budgets on every tick (it fails open without a database); every tick's summary is
 * counted by the metrics.
 */
export function dispatcherSettings(cfg: Pick<Config, 'taskServerUrl' | 'dispatchMaxInFlight'>): DispatcherSettings {
  return {
    budgetGate: budgetDispatchGate,
    claimUrlBase: cfg.taskServerUrl,
    maxInFlight: cfg.dispatchMaxInFlight,
    onSummary: (summary) => observations.tick(summary),
  };
}
