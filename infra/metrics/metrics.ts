import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { FleetGauges } from '../../core/metrics/fleet-gauges';
import type { TickSummary } from '../../core/ports';
import { observations } from './observations';

/**
 * The process's Prometheus metrics (GET /api/metrics). Counters and histograms count what this
 * process saw (requests, dispatcher ticks); gauges of fleet state are read from the database at
 * scrape time, so every process answers the same for them. Its own registry, not prom-client's
 * global one, so nothing else registers into it.
 */
export const metricsRegistry = new Registry();
const registers = [metricsRegistry];

const httpRequests = new Counter({
  name: 'fleet_http_requests_total',
  help: 'HTTP requests answered, by route (the route table path), method and status',
  labelNames: ['route', 'method', 'status'] as const,
  registers,
});
const httpDuration = new Histogram({
  name: 'fleet_http_request_duration_seconds',
  help: 'Time from the request reaching the handler stack to its response, by route, method and status',
  labelNames: ['route', 'method', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers,
});
const tickDuration = new Histogram({
  name: 'fleet_dispatcher_tick_duration_seconds',
  help: 'Dispatcher tick duration, by source (timer, lambda, api, cli)',
  labelNames: ['source'] as const,
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers,
});
const tickRuns = new Counter({
  name: 'fleet_dispatcher_runs_total',
  help: 'Runs a dispatcher tick handled, by outcome (dispatched, held, stopped, recovered_*, woken, wake_failed, ...)',
  labelNames: ['outcome'] as const,
  registers,
});
const runsByStatus = new Gauge({
  name: 'fleet_workflow_runs',
  help: 'Workflow runs by status',
  labelNames: ['status'] as const,
  registers,
});
const stuckRuns = new Gauge({
  name: 'fleet_workflow_runs_stuck',
  help: 'Runs the next tick would recover, by reason',
  labelNames: ['reason'] as const,
  registers,
});
const budgetsByStatus = new Gauge({
  name: 'fleet_budgets',
  help: 'Active budgets by derived status',
  labelNames: ['status'] as const,
  registers,
});
const outboxNewest = new Gauge({ name: 'fleet_outbox_newest_event_id', help: 'Id of the newest committed outbox event', registers });
const auditSearchPending = new Gauge({
  name: 'fleet_audit_search_pending',
  help: 'Audit rows not yet folded into the search index (the next dispatcher pass folds them; search finds them before)',
  registers,
});
const outboxLag = new Gauge({
  name: 'fleet_outbox_lag_events',
  help: 'Events between the newest committed one and the slowest connected stream client (0 without clients)',
  registers,
});
const embeddedPostgresRestarts = new Counter({
  name: 'fleet_embedded_postgres_restarts_total',
  help: 'Starts of the embedded PostgreSQL by this process after it went away, by outcome (restarted, failed)',
  labelNames: ['outcome'] as const,
  registers,
});
const sseClients = new Gauge({ name: 'fleet_sse_clients', help: 'Connected event-stream clients of this process', registers });
const poolConnections = new Gauge({
  name: 'fleet_db_pool_connections',
  help: 'Database pool connections by state (total, idle, waiting)',
  labelNames: ['state'] as const,
  registers,
});
/**
 * Where this process's memory is, read at scrape time: the resident set, the JavaScript heap V8
 * holds (total) and what lives in it (used, which swings with the collector's rhythm), and the
 * memory of Buffers outside it. RSS that grows while the heap does not is native memory.
 */
const processMemory = new Gauge({
  name: 'fleet_process_memory_bytes',
  help: 'Memory of this process by kind (rss, heap_total, heap_used, external, array_buffers)',
  labelNames: ['kind'] as const,
  registers,
});

/**
 * The request series of one route, method and status, kept once made: prom-client hashes a label
 * object on every call, which a request should not pay for. Bounded: routes come from the route
 * table, statuses from the answers; these two metrics are never reset.
 */
const requestSeries = new Map<string, { count: { inc(): void }; duration: { observe(seconds: number): void } }>();

/** Route label: the route table path, so ids never become label values. */
export function recordRequest(routeKey: string | undefined, method: string, status: number, seconds: number): void {
  const key = `${routeKey ?? ''} ${method} ${status}`;
  let series = requestSeries.get(key);
  if (!series) {
    const labels = { route: routeKey?.split(' ')[1] ?? 'unmatched', method, status: String(status) };
    series = { count: httpRequests.labels(labels), duration: httpDuration.labels(labels) };
    requestSeries.set(key, series);
  }
  series.count.inc();
  series.duration.observe(seconds);
}

/** Summary fields that are not counts of runs handled: a duration, and a snapshot of the queue. */
const notRunCounts = new Set(['durationMs', 'unrouted']);
const snakeCase = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * Every count of a tick summary as an outcome label (`recovered.timedOut` → `recovered_timed_out`,
 * `budgetEnforcement.held` → `held`), so counts a later summary adds appear by themselves.
 */
export function recordTick(summary: TickSummary): void {
  tickDuration.observe({ source: summary.source }, summary.durationMs / 1000);
  const counts = (prefix: string, value: object) => {
    for (const [key, n] of Object.entries(value)) {
      if (notRunCounts.has(key)) continue;
      if (typeof n === 'number') tickRuns.inc({ outcome: `${prefix}${snakeCase(key)}` }, n);
      else if (n && typeof n === 'object' && !Array.isArray(n)) counts(key === 'budgetEnforcement' ? '' : `${snakeCase(key)}_`, n);
    }
  };
  counts('', summary);
}

/** What the runner's stream server reports: its clients and the slowest one's position. */
export interface StreamGauges {
  clients: number;
  slowestPosition: number | undefined;
}

let streamSource: (() => StreamGauges) | undefined;

/** The runner registers its stream server; without one (Lambda) the SSE gauges read 0. */
export function reportStreamsFrom(source: (() => StreamGauges) | undefined): void {
  streamSource = source;
}

/** Sets the scrape-time gauges, then renders the registry in the Prometheus text format. */
export async function renderMetrics(
  fleet: FleetGauges | undefined,
  pool: { totalCount: number; idleCount: number; waitingCount: number } | undefined,
) {
  if (fleet) {
    runsByStatus.reset();
    for (const [status, n] of Object.entries(fleet.runsByStatus)) runsByStatus.set({ status }, n);
    for (const [reason, n] of Object.entries(fleet.stuckRuns)) stuckRuns.set({ reason }, n);
    budgetsByStatus.reset();
    for (const [status, n] of Object.entries(fleet.budgetsByStatus)) budgetsByStatus.set({ status }, n);
    outboxNewest.set(fleet.newestEventId);
    auditSearchPending.set(fleet.auditSearchPending);
  }
  const streams = streamSource?.();
  sseClients.set(streams?.clients ?? 0);
  const slowest = streams?.slowestPosition;
  outboxLag.set(fleet && slowest !== undefined ? Math.max(0, fleet.newestEventId - slowest) : 0);
  if (pool) {
    poolConnections.set({ state: 'total' }, pool.totalCount);
    poolConnections.set({ state: 'idle' }, pool.idleCount);
    poolConnections.set({ state: 'waiting' }, pool.waitingCount);
  }
  const memory = process.memoryUsage();
  processMemory.set({ kind: 'rss' }, memory.rss);
  processMemory.set({ kind: 'heap_total' }, memory.heapTotal);
  processMemory.set({ kind: 'heap_used' }, memory.heapUsed);
  processMemory.set({ kind: 'external' }, memory.external);
  processMemory.set({ kind: 'array_buffers' }, memory.arrayBuffers);
  return { contentType: metricsRegistry.contentType, text: await metricsRegistry.metrics() };
}

// Importing this module is what turns the reports of observations.ts into counters.
observations.request = recordRequest;
observations.tick = recordTick;
observations.wakes = (outcome) => {
  tickRuns.inc({ outcome: 'woken' }, outcome.woken);
  tickRuns.inc({ outcome: 'wake_failed' }, outcome.failed);
};
observations.embeddedPostgresRestart = (outcome) => embeddedPostgresRestarts.inc({ outcome });
