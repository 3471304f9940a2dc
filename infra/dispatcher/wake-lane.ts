import type { WakeLane, WakeOutcome } from '../../core/workflows/wake';
import { logger } from '../logger';
import { observations } from '../metrics/observations';

export interface BackgroundWakeLane extends WakeLane {
  /** Wake batches still being sent. */
  readonly inFlight: number;
  /** Resolves once every batch handed over so far is done (the timer's stop waits for it). */
  drain(): Promise<void>;
}

/**
 * The runner's wake lane: each tick's wakes are sent while the next ticks go on. A batch's outcome
 * is counted by the metrics (woken, wake_failed) and its failures logged, as a tick's were.
 */
export function backgroundWakeLane(report: (outcome: WakeOutcome) => void = reportWakes): BackgroundWakeLane {
  const pending = new Set<Promise<void>>();
  return {
    send(wakes) {
      const batch: Promise<void> = wakes()
        .then(report, (err: Error) => logger().warn('dispatcher wakes failed', { error: err.message }))
        .finally(() => pending.delete(batch));
      pending.add(batch);
    },
    get inFlight() {
      return pending.size;
    },
    async drain() {
      while (pending.size) await Promise.all([...pending]);
    },
  };
}

function reportWakes(outcome: WakeOutcome): void {
  observations.wakes(outcome);
  if (outcome.failed) logger().warn('dispatcher wakes failed', { woken: outcome.woken, failed: outcome.failed, errors: outcome.errors });
}
