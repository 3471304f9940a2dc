import type { TickSummary } from '../../core/ports';
import type { WakeOutcome } from '../../core/workflows/wake';

/**
 * Where answered requests and finished ticks are reported. The prom-client counters of
 * `metrics.ts` attach here only in processes that can serve them (the runner, and the Lambda
 * bundle that holds GET /api/metrics), so the other Lambda bundles carry no metrics library;
 * until then a report goes nowhere.
 */
export const observations = {
  request(_routeKey: string | undefined, _method: string, _status: number, _seconds: number): void {},
  tick(_summary: TickSummary): void {},
  /** Wakes sent after their tick (the runner's wake lane). */
  wakes(_outcome: WakeOutcome): void {},
  /** The embedded PostgreSQL went away and this process started it again, or failed to. */
  embeddedPostgresRestart(_outcome: 'restarted' | 'failed'): void {},
};
