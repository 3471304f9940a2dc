import path from 'node:path';
import { StorageUnavailableError } from '../core/errors';
import { systemClock } from '../core/ports/clock';
import { randomIds } from '../core/ports/ids';
import type { Deps, Storage } from '../core/ports';
import { config as loadConfig, type Config } from './config';
import { loadModelPrices } from './costs/model-prices';
import { httpWebhookTransport } from './webhooks/http-webhook-transport';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './db/embedded-postgres';
import { fallbackPath, FallbackWriter, readFallbackFile } from './db/fallback-file';
import { migrate } from './db/migrate';
import { PgDb } from './db/pg-db';
import { dispatcherSettings } from './dispatcher/dispatcher-settings';
import { outboxEventBus } from './events/outbox-event-bus';
import { markdownTaskFile } from './legacy/markdown-task-file';
import { logger } from './logger';
import { cliRuntime } from './runtime/cli-runtime';
import { gatewaySessions } from './runtime/gateway-sessions';
import { removeStaleWorkFiles } from './snapshots/file-store';
import { dataFile } from './runtime/data-file';
import { legacyJobDir, legacyJobFiles } from './runtime/legacy-job-files';
import { generator, snapshotStoreFor } from './snapshots/snapshot-store';
import packageJson from '../package.json';

/** What the storage section of /api/health reports. */
export interface StorageInfo {
  kind: 'embedded' | 'external';
  version: string | null;
  note: string | null;
}

/**
 * Everything a handler needs, built once per process (per worker under serverless-offline):
 * configuration, the ports of the core, and the storage lifecycle.
 */
export interface AppContext {
  config: Config;
  deps: Deps;
  startedAt: Date;
  /** The package version this process was built from. */
  version: string;
  storageInfo: StorageInfo;
  /** The live database, when there is one (for the runner's timers and tests). */
  database(): PgDb | undefined;
  close(): Promise<void>;
  /** Stops the embedded PostgreSQL this process owns without waiting for the pool (a second SIGTERM). */
  stopDatabaseNow(): Promise<void>;
}

const RECONNECT_INTERVAL_MS = 5_000;

/**
 * The ports of Deps that depend only on configuration (not on storage or the price file): the one
 * place each adapter is chosen. Benchmarks and tools reuse it to get the same adapters.
 */
export function configuredPorts(cfg: Config): Omit<Deps, 'storage' | 'prices'> {
  return {
    clock: systemClock,
    ids: randomIds,
    events: outboxEventBus,
    runtime: cliRuntime({
      executable: cfg.runtimeCli,
      timeoutMs: cfg.runtimeCliTimeoutMs,
      timeoutsByKind: cfg.runtimeTimeoutsByKind,
      stateDir: cfg.runtimeStateDir,
      replayMaxBytes: cfg.sessionReplayMaxBytes,
      sessions:
        cfg.runtimeGateway &&
        gatewaySessions({
          url: cfg.runtimeGateway.url,
          token: cfg.runtimeGateway.token,
          timeoutMs: cfg.runtimeGateway.timeoutMs,
          replayMaxBytes: cfg.sessionReplayMaxBytes,
        }),
      // the CLI finds a gateway of its config file itself; one given to this server by variable it is told
      gateway:
        cfg.runtimeGateway && cfg.runtimeGateway.source !== 'config file'
          ? { url: cfg.runtimeGateway.url, token: cfg.runtimeGateway.token }
          : undefined,
    }),
    snapshots: snapshotStoreFor(cfg),
    generator,
    legacyJobs: legacyJobFiles(legacyJobDir(cfg.dataDir)),
    taskFile: markdownTaskFile(cfg.dataDir),
    citationQueue: dataFile(path.join(cfg.dataDir, 'citation-queue.json')),
    dispatcher: dispatcherSettings(cfg),
    webhooks: httpWebhookTransport({ timeoutMs: cfg.webhookTimeoutMs, allowPrivate: cfg.webhookAllowPrivate }),
  };
}

/**
 * Migrations run on a connection of their own without the statement limit (an index build on a
 * large table may take minutes); the service's pool then carries the configured timeouts.
 */
async function connectAndMigrate(
  url: string,
  cfg: Pick<Config, 'dbConnectTimeoutMs' | 'dbStatementTimeoutMs' | 'dbPreparedStatements'>,
): Promise<{ db: PgDb; version: string }> {
  // DDL changes the shapes a prepared statement was parsed against: migrations send every statement unnamed
  const migrator = new PgDb(url, { max: 1, connectTimeoutMs: cfg.dbConnectTimeoutMs, prepareStatements: false });
  try {
    const report = await migrate(migrator);
    // a repair is news to an operator: the database had been migrated by an earlier text of a migration
    if (report.applied.length || report.repaired.length) logger().info('database migrated', { ...report });
  } finally {
    await migrator.close().catch(() => undefined);
  }
  const db = new PgDb(url, {
    connectTimeoutMs: cfg.dbConnectTimeoutMs,
    statementTimeoutMs: cfg.dbStatementTimeoutMs,
    prepareStatements: cfg.dbPreparedStatements,
  });
  try {
    const { rows } = await db.query<{ server_version: string }>('SHOW server_version');
    return { db, version: rows[0]?.server_version.split(' ')[0] ?? 'unknown' };
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
}

/**
 * Opens storage as spec 01 and the operating contract say:
 * - DATABASE_URL unset: start (or attach to) the embedded PostgreSQL in DATA_DIR/pg;
 * - DATABASE_URL set and reachable: use it;
 * - DATABASE_URL set but unreachable: serve the fallback file read-only and retry in the background.
 */
export async function createAppContext(cfg: Config = loadConfig(), options: { reconnectIntervalMs?: number } = {}): Promise<AppContext> {
  const reconnectEvery = options.reconnectIntervalMs ?? RECONNECT_INTERVAL_MS;
  const log = logger();
  let embedded: EmbeddedPostgres | undefined;
  let db: PgDb | undefined;
  let reconnectTimer: NodeJS.Timeout | undefined;
  const storageInfo: StorageInfo = { kind: cfg.databaseUrl ? 'external' : 'embedded', version: null, note: null };
  // a write killed mid-way leaves its work files; repeated crashes would pile them up
  const stale = await removeStaleWorkFiles(cfg.snapshotDir, new Date());
  if (stale.length) log.info('removed work files of interrupted snapshot writes', { count: stale.length });
  const deps: Deps = {
    storage: { mode: 'fallback', fallback: { savedAt: null, projects: [], tasks: [] }, label: 'starting', reason: 'starting' },
    ...configuredPorts(cfg),
    prices: await loadModelPrices(cfg.modelPricesFile),
  };

  const useDatabase = (opened: { db: PgDb; version: string }, label: string) => {
    db = opened.db;
    storageInfo.version = opened.version;
    storageInfo.note = null;
    deps.storage = { mode: 'database', db: opened.db, label } satisfies Storage;
  };

  if (!cfg.databaseUrl) {
    embedded = await startEmbeddedPostgres(cfg.dataDir, (line, level = 'info') => log[level](line));
    useDatabase(await connectAndMigrate(embedded.url, cfg), `embedded PostgreSQL ${embedded.version}`);
  } else {
    const url = cfg.databaseUrl;
    try {
      const opened = await connectAndMigrate(url, cfg);
      useDatabase(opened, `PostgreSQL ${opened.version}`);
    } catch (err) {
      const reason = `database unreachable at start: ${(err as Error).message}`;
      log.warn('starting in read-only fallback mode', { reason });
      const fallback = await readFallbackFile(fallbackPath(cfg.dataDir));
      storageInfo.note = fallback.savedAt
        ? `read-only fallback copy saved ${fallback.savedAt}; reconnecting`
        : 'read-only fallback mode with no saved copy; reconnecting';
      deps.storage = { mode: 'fallback', fallback, label: 'fallback file', reason };
      const retry = async () => {
        try {
          const opened = await connectAndMigrate(url, cfg);
          useDatabase(opened, `PostgreSQL ${opened.version}`);
          log.info('database is back; leaving fallback mode');
        } catch {
          reconnectTimer = setTimeout(retry, reconnectEvery).unref();
        }
      };
      reconnectTimer = setTimeout(retry, reconnectEvery).unref();
    }
  }

  return {
    config: cfg,
    deps,
    startedAt: new Date(),
    version: packageJson.version,
    storageInfo,
    database: () => db,
    async close() {
      if (reconnectTimer) clearTimeout(reconnectTimer);
      await db?.close().catch(() => undefined);
      await embedded?.stop();
    },
    async stopDatabaseNow() {
      await embedded?.stop();
    },
  };
}

let shared: Promise<AppContext> | undefined;

/** The process-wide context, created on first use (Lambda cold start, first request, runner start). */
export function appContext(): Promise<AppContext> {
  shared ??= createAppContext().catch((err: Error) => {
    shared = undefined; // let the next request try again
    logger().error('storage could not be opened', { error: err.message });
    throw new StorageUnavailableError(`storage could not be opened: ${err.message}`);
  });
  return shared;
}

/** Installs a context built elsewhere (the runner builds it before listening). */
export function setAppContext(ctx: AppContext): void {
  shared = Promise.resolve(ctx);
}

/** Writes the fallback copy now and then; used by the long-lived runner, not by Lambdas. */
export function startFallbackRefresher(ctx: AppContext, intervalMs = 15_000): () => Promise<void> {
  let writer: FallbackWriter | undefined;
  let current: PgDb | undefined;
  // One copy at a time: a copy of a large table on a busy machine can outlast the interval, and
  // overlapping ones each held their pages (and wrote the same temporary file); a tick that finds
  // one running is skipped.
  let running: Promise<void> | undefined;
  const copy = async () => {
    const db = ctx.database();
    if (!db || ctx.deps.storage.mode !== 'database') return;
    if (db !== current) {
      current = db;
      writer = new FallbackWriter(db, fallbackPath(ctx.config.dataDir));
    }
    await writer!
      .refresh(ctx.deps.clock.now())
      .catch((err) => logger().warn('fallback copy not written', { error: (err as Error).message }));
  };
  const refresh = () => (running ??= copy().finally(() => (running = undefined)));
  const timer = setInterval(refresh, intervalMs);
  timer.unref();
  void refresh();
  return async () => {
    clearInterval(timer);
    await running;
    await refresh();
  };
}
