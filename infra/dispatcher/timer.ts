import { foldAuditSearch } from '../../core/audit/list-audit';
import { requireDb } from '../../core/storage';
import { dispatcherPass } from '../../core/workflows/dispatcher';
import { runWebhookDeliveries } from '../../core/webhooks/delivery';
import type { AppContext } from '../app-context';
import { logger } from '../logger';
import { backgroundWakeLane } from './wake-lane';

export interface BackgroundTimer {
  /** Stops the timer and waits for a pass in flight to finish. */
  stop(): Promise<void>;
}

/**
 * Background work of the local runner, one pass per interval: passes in this process never
 * overlap (a slow pass makes the next one wait); passes of other processes are kept apart by the
 * database (SKIP LOCKED, leases). Without a database (fallback mode) the timer waits quietly.
 */
function startPeriodic(ctx: AppContext, intervalMs: number, pass: () => Promise<void>, failure: string): BackgroundTimer {
  let running: Promise<void> | undefined;
  let stopped = false;
  const once = async () => {
    if (running || stopped || ctx.deps.storage.mode !== 'database') return;
    running = pass()
      .catch((err: Error) => logger().warn(failure, { error: err.message }))
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

/**
 * The dispatcher (DISPATCHER_INTERVAL_MS): the same core `dispatcherPass` the Lambda and the API run,
 * its wakes sent through a wake lane, so that a slow runtime never holds the ticks; stopping waits
 * for the wakes in flight as well.
 */
export function startDispatcherTimer(ctx: AppContext, intervalMs: number): BackgroundTimer {
  const wakeLane = backgroundWakeLane();
  const periodic = startPeriodic(
    ctx,
    intervalMs,
    async () => {
      const summary = await dispatcherPass(ctx.deps, { source: 'timer', wakeLane });
      if (summary.dispatched || summary.wakeFailed || Object.values(summary.recovered).some(Boolean))
        logger().info('dispatcher tick', { summary });
    },
    'dispatcher tick failed',
  );
  return {
    async stop() {
      await periodic.stop();
      await wakeLane.drain();
    },
  };
}

/** Webhook deliveries (WEBHOOK_DELIVERY_INTERVAL_MS): the pass the scheduled Lambda and POST /api/webhooks/deliver run. */
export function startWebhookTimer(ctx: AppContext, intervalMs: number): BackgroundTimer {
  return startPeriodic(
    ctx,
    intervalMs,
    async () => {
      const pass = await runWebhookDeliveries(ctx.deps);
      if (pass.attempted) logger().info('webhook deliveries', { pass });
    },
    'webhook delivery pass failed',
  );
}

/**
 * The audit search fold (AUDIT_SEARCH_FOLD_INTERVAL_MS): every runner that serves GET /api/audit?q=
 * indexes what was written since its last pass, whether or not this process (or any) runs the
 * dispatcher, whose pass folds too. A pass takes at most 20,000 rows (a few seconds of trigram work),
 * and passes never overlap, so a large backlog is folded pass after pass without one long statement.
 */
export function startAuditSearchFoldTimer(ctx: AppContext, intervalMs: number): BackgroundTimer {
  return startPeriodic(
    ctx,
    intervalMs,
    async () => {
      const folded = await foldAuditSearch(requireDb(ctx.deps.storage));
      if (folded) logger().debug('audit search fold', { folded });
    },
    'audit search fold failed',
  );
}
