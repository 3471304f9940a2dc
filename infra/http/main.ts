import { config, ConfigError, isLoopbackHost } from '../config';
import { createAppContext, setAppContext, startFallbackRefresher } from '../app-context';
import { startCronManager, type CronManager } from '../cron-manager/cron-manager-server';
import { startAuditSearchFoldTimer, startDispatcherTimer, startWebhookTimer, type BackgroundTimer } from '../dispatcher/timer';
import { EventStreams } from '../events/event-streams';
import { resolveSecretParameters } from '../secrets/secret-parameters';
import { logger } from '../logger';
import { reportStreamsFrom } from '../metrics/metrics';
import { startRunner } from './runner';
import { consoleDirBesideServer, consoleUi } from './console-ui';
import { staticUi } from './static-ui';

/** Exits with the one-line reason the operating contract asks for. */
function fail(reason: string): never {
  process.stderr.write(`task server cannot start: ${reason}\n`);
  process.exit(1);
}

/**
 * `node dist/server.js`: check the configuration, open storage, listen, print one ready line;
 * on SIGTERM or SIGINT finish in-flight requests, close the database, exit 0.
 */
async function main(): Promise<void> {
  let cfg;
  try {
    await resolveSecretParameters(); // *_SSM names: the token and connection string come from AWS
    cfg = config();
  } catch (err) {
    fail(err instanceof ConfigError ? `bad environment: ${err.message}` : (err as Error).message);
  }
  if (!isLoopbackHost(cfg.host) && !cfg.authToken) {
    fail(`HOST=${cfg.host} is not a loopback address and DASHBOARD_AUTH_TOKEN is not set; set a token or bind to 127.0.0.1`);
  }

  // Output that goes away (a log collector that restarted, `npm start | head`, a parent that died)
  // is no reason to stop serving: its lines are dropped. Unheard, the first failed write was an
  // uncaught exception whose own log line failed the same way, round and round on the next tick:
  // the process spun at full CPU, answered nothing and never saw SIGTERM.
  for (const output of [process.stdout, process.stderr]) output.on('error', () => undefined);
  process.on('unhandledRejection', (reason) => logger().error('unhandled rejection', { reason: String(reason) }));
  process.on('uncaughtException', (err) => logger().error('uncaught exception', { error: err }));

  let ctx;
  try {
    ctx = await createAppContext(cfg);
  } catch (err) {
    fail(`storage did not open: ${(err as Error).message}`);
  }
  setAppContext(ctx);
  const stopFallback = startFallbackRefresher(ctx);

  const streams = new EventStreams(ctx);
  reportStreamsFrom(() => streams.stats());
  let ui;
  try {
    // DASHBOARD_UI_DIR serves another front end instead of the console
    ui = cfg.uiDir ? await staticUi(cfg.uiDir) : await consoleUi(consoleDirBesideServer());
  } catch {
    await ctx.close();
    fail(`DASHBOARD_UI_DIR=${cfg.uiDir} is not a readable directory`);
  }
  let runner;
  try {
    runner = await startRunner({ host: cfg.host, port: cfg.port, largeBodyLimit: cfg.restoreMaxBytes, streams, staticUi: ui });
  } catch (err) {
    await ctx.close();
    const code = (err as NodeJS.ErrnoException).code;
    fail(code === 'EADDRINUSE' ? `port ${cfg.port} on ${cfg.host} is already in use` : (err as Error).message);
  }

  let cronManager: CronManager | undefined;
  if (cfg.cronManagerPort > 0) {
    try {
      cronManager = await startCronManager({ ctx, port: cfg.cronManagerPort, authToken: cfg.authToken });
      logger().info('cron manager listening', { url: cronManager.url });
    } catch (err) {
      await runner.close();
      await ctx.close();
      const code = (err as NodeJS.ErrnoException).code;
      fail(
        code === 'EADDRINUSE'
          ? `cron-manager port ${cfg.cronManagerPort} is already in use (CRON_MANAGER_PORT=0 turns it off)`
          : (err as Error).message,
      );
    }
  }

  let dispatcher: BackgroundTimer | undefined;
  let webhooks: BackgroundTimer | undefined;
  let auditFold: BackgroundTimer | undefined;
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) {
      // impatient, not careless: in-flight work is abandoned, the embedded PostgreSQL is not
      process.stderr.write(`second ${signal}: stopping the database and exiting now\n`);
      await ctx.stopDatabaseNow().catch(() => undefined);
      process.exit(1);
    }
    stopping = true;
    logger().info('shutting down', { signal });
    await dispatcher?.stop(); // first: no tick starts against a closing database
    await webhooks?.stop();
    await auditFold?.stop();
    await cronManager?.close();
    await runner.close(); // ends open streams first, so in-flight requests can finish
    await streams.stop();
    await stopFallback();
    await ctx.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  // The outbox listener and pruner start once the runner listens; stream requests wait for them.
  await streams.start();
  if (cfg.dispatcherIntervalMs > 0) dispatcher = startDispatcherTimer(ctx, cfg.dispatcherIntervalMs);
  if (cfg.webhookDeliveryIntervalMs > 0) webhooks = startWebhookTimer(ctx, cfg.webhookDeliveryIntervalMs);
  if (cfg.auditSearchFoldIntervalMs > 0) auditFold = startAuditSearchFoldTimer(ctx, cfg.auditSearchFoldIntervalMs);

  const front = cfg.uiDir ? `; front end (DASHBOARD_UI_DIR) at ${runner.url}/` : ui ? `; console at ${runner.url}/` : '';
  process.stdout.write(`task server ready at ${runner.url} (storage: ${ctx.deps.storage.label})${front}\n`);
}

void main();
