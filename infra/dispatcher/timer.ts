import { tick } from '../../core/workflows/dispatcher';
import type { AppContext } from '../app-context';
import { logger } from '../logger';

export interface DispatcherTimer {
  /** Stops the timer and waits for a tick in flight to finish. */
  stop(): Promise<void>;
}

/**
 * The local runner's dispatcher (DISPATCHER_INTERVAL_MS): one tick per interval through the same
 * core `tick` the Lambda and the API run. Ticks in this process never overlap (a slow tick makes
 * the next one wait); ticks of other processes are kept apart by the database (SKIP LOCKED).
 * Without a database (fallback mode) the timer waits quietly.
 */
export function startDispatcherTimer(ctx: AppContext, intervalMs: number): DispatcherTimer {
  let running: Promise<void> | undefined;
  let stopped = false;
  const once = async () => {
    if (running || stopped || ctx.deps.storage.mode !== 'database') return;
    running = tick(ctx.deps, { source: 'timer' })
      .then((summary) => {
        if (summary.dispatched || summary.wakeFailed || Object.values(summary.recovered).some(Boolean)) logger().info('dispatcher tick', { summary });
      })
      .catch((err: Error) => logger().warn('dispatcher tick failed', { error: err.message }))
      .finally(() => {
        running = undefined;
      });
    await running;
  };
  const timer = setInterval(() => void once(), intervalMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
