import { StorageUnavailableError } from '../errors';
import type { Deps } from '../ports';

export interface StorageDescription {
  /** embedded: the PostgreSQL this service runs itself; external: the one of DATABASE_URL. */
  kind: 'embedded' | 'external';
  note: string | null;
}

/**
 * How long health waits for its probe. Health is what an operator (or a load balancer) asks when
 * something is wrong, so it answers within this whatever the database does; a probe still
 * running is given up on here and ends with the pool's own statement timeout.
 */
export const HEALTH_PROBE_TIMEOUT_MS = 1_500;

/** Round trip to the database in milliseconds, or undefined when it does not answer in time. */
async function probeDatabase(deps: Pick<Deps, 'storage'>): Promise<number | undefined> {
  if (deps.storage.mode !== 'database') return undefined;
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const gaveUp = new Promise<'timed out'>((resolve) => {
    timer = setTimeout(() => resolve('timed out'), HEALTH_PROBE_TIMEOUT_MS);
  });
  try {
    const answer = await Promise.race([deps.storage.db.query('SELECT 1'), gaveUp]);
    return answer === 'timed out' ? undefined : Math.round((performance.now() - started) * 100) / 100;
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * GET /api/health. `status` is ok on the database, degraded on the fallback copy or when the
 * database stops answering; db_latency_ms is -1 when there is no round trip to measure.
 */
export async function healthReport(
  deps: Pick<Deps, 'storage' | 'clock'>,
  info: { port: number; uptimeSeconds: number; storage: StorageDescription },
) {
  const latency = await probeDatabase(deps);
  const onDatabase = deps.storage.mode === 'database';
  return {
    status: onDatabase && latency !== undefined ? 'ok' : 'degraded',
    timestamp: deps.clock.now().toISOString(),
    task_storage: onDatabase ? 'database' : 'fallback-file',
    storage_type: 'postgresql',
    storage_mode: onDatabase ? `${info.storage.kind}` : 'fallback-readonly',
    storage_label: deps.storage.label,
    storage_note:
      deps.storage.mode === 'fallback'
        ? (info.storage.note ?? deps.storage.reason)
        : latency === undefined
          ? 'database did not answer the health probe'
          : info.storage.note,
    db_latency_ms: latency ?? -1,
    uptime: Math.round(info.uptimeSeconds),
    port: info.port,
  };
}

/** GET /api/stats: counts that leave out soft-deleted tasks. 503 when no storage holds any data. */
export async function storageStats(deps: Pick<Deps, 'storage'>): Promise<{ projects: number; tasks: number; completed: number }> {
  const storage = deps.storage;
  if (storage.mode === 'fallback') {
    if (!storage.fallback.savedAt) throw new StorageUnavailableError('storage not initialized: no database and no fallback copy');
    const live = storage.fallback.tasks.filter((t) => !t.deleted_at);
    return {
      projects: storage.fallback.projects.length,
      tasks: live.length,
      completed: live.filter((t) => t.status === 'completed').length,
    };
  }
  const { rows } = await storage.db.query<{ projects: number; tasks: number; completed: number }>(
    `SELECT (SELECT count(*)::int FROM projects) AS projects,
            count(*)::int AS tasks,
            (count(*) FILTER (WHERE status = 'completed'))::int AS completed
       FROM tasks WHERE deleted_at IS NULL`,
  );
  return rows[0]!;
}

/** A section of health-status that a later part of the service (the runtime gateway) fills in. */
export interface GatewayStatus {
  status: string;
  healthy: boolean;
  agent_count: number;
  reason?: string;
}

/** GET /api/health-status: database, gateway and this server, each with its own verdict. */
export async function healthStatus(deps: Pick<Deps, 'storage'>, gateway: GatewayStatus) {
  const latency = await probeDatabase(deps);
  const dbHealthy = latency !== undefined;
  const mode = deps.storage.mode === 'database' ? 'database' : 'fallback-readonly';
  const database = { status: dbHealthy ? 'connected' : 'unavailable', healthy: dbHealthy, mode };
  const taskServer = { healthy: true, status: 'running' };
  const webhooks = dbHealthy ? await webhookHealth(deps) : undefined;
  return {
    status: dbHealthy ? (gateway.healthy ? 'healthy' : 'degraded') : 'unhealthy',
    database,
    gateway,
    task_server: taskServer,
    ...(webhooks ? { webhooks } : {}),
    checks: {
      database: { ...database, latency_ms: latency ?? -1 },
      gateway_sync: { healthy: gateway.healthy, status: gateway.status, count: gateway.agent_count },
      task_server: taskServer,
      ...(webhooks ? { webhooks } : {}),
    },
  };
}

/**
 * Webhooks whose delivery gave up after its retries are failing until a delivery
 * succeeds; health-status lists them (the overall status is the spec's, from database and gateway).
 */
async function webhookHealth(deps: Pick<Deps, 'storage'>) {
  if (deps.storage.mode !== 'database') return undefined;
  try {
    const { rows } = await deps.storage.db.query<{ id: string; url: string; failing: boolean; active: boolean }>(
      'SELECT id, url, failing, active FROM webhooks ORDER BY created_at, id',
    );
    const failing = rows.filter((w) => w.active && w.failing).map((w) => ({ id: w.id, url: w.url }));
    return {
      healthy: failing.length === 0,
      status: failing.length ? 'failing' : 'ok',
      active: rows.filter((w) => w.active).length,
      failing,
    };
  } catch {
    return undefined;
  }
}
