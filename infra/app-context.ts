import { StorageUnavailableError } from '../core/errors';
import { systemClock } from '../core/ports/clock';
import { randomIds } from '../core/ports/ids';
import type { Deps, Storage } from '../core/ports';
import { config as loadConfig, type Config } from './config';
import { installModelPricesFrom } from './costs/model-prices';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './db/embedded-postgres';
import { fallbackPath, FallbackWriter, readFallbackFile } from './db/fallback-file';
import { migrate } from './db/migrate';
import { PgDb } from './db/pg-db';
import { outboxEventBus } from './events/outbox-event-bus';
import { logger } from './logger';
import { cliRuntime } from './runtime/cli-runtime';

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
  storageInfo: StorageInfo;
  /** The live database, when there is one (for the runner's timers and tests). */
  database(): PgDb | undefined;
  close(): Promise<void>;
  /** Stops the embedded PostgreSQL this process owns without waiting for the pool (a second SIGTERM). */
  stopDatabaseNow(): Promise<void>;
}

const RECONNECT_INTERVAL_MS = 5_000;

async function connectAndMigrate(url: string): Promise<{ db: PgDb; version: string }> {
  const db = new PgDb(url);
  try {
    await migrate(db);
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
export async function createAppContext(
  cfg: Config = loadConfig(),
  options: { reconnectIntervalMs?: number } = {},
): Promise<AppContext> {
  const reconnectEvery = options.reconnectIntervalMs ?? RECONNECT_INTERVAL_MS;
  const log = logger();
  let embedded: EmbeddedPostgres | undefined;
  let db: PgDb | undefined;
  let reconnectTimer: NodeJS.Timeout | undefined;
  const storageInfo: StorageInfo = { kind: cfg.databaseUrl ? 'external' : 'embedded', version: null, note: null };
  await installModelPricesFrom(cfg.modelPricesFile);
  const deps: Deps = {
    storage: { mode: 'fallback', fallback: { savedAt: null, projects: [], tasks: [] }, label: 'starting', reason: 'starting' },
    clock: systemClock,
    ids: randomIds,
    events: outboxEventBus,
    runtime: cliRuntime({ executable: cfg.runtimeCli, timeoutMs: cfg.runtimeCliTimeoutMs, stateDir: cfg.runtimeStateDir, replayMaxBytes: cfg.sessionReplayMaxBytes }),
  };

  const useDatabase = (opened: { db: PgDb; version: string }, label: string) => {
    db = opened.db;
    storageInfo.version = opened.version;
    storageInfo.note = null;
    deps.storage = { mode: 'database', db: opened.db, label } satisfies Storage;
  };

  if (!cfg.databaseUrl) {
    embedded = await startEmbeddedPostgres(cfg.dataDir, (line) => log.info(line));
    useDatabase(await connectAndMigrate(embedded.url), `embedded PostgreSQL ${embedded.version}`);
  } else {
    const url = cfg.databaseUrl;
    try {
      const opened = await connectAndMigrate(url);
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
          const opened = await connectAndMigrate(url);
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
  const refresh = async () => {
    const db = ctx.database();
    if (!db || ctx.deps.storage.mode !== 'database') return;
    if (db !== current) {
      current = db;
      writer = new FallbackWriter(db, fallbackPath(ctx.config.dataDir));
    }
    await writer!.refresh(ctx.deps.clock.now()).catch((err) => logger().warn('fallback copy not written', { error: (err as Error).message }));
  };
  const timer = setInterval(refresh, intervalMs);
  timer.unref();
  void refresh();
  return async () => {
    clearInterval(timer);
    await refresh();
  };
}
