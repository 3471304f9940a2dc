import { describe, expect, it } from 'vitest';
import { resetConfig } from '../../infra/config';
import { reportStreamsFrom } from '../../infra/metrics/metrics';
import { useTestApp } from '../support/use-app';
import { createRun, fakeRuntime, fakeTime, templateWithRoute, tick } from './workflow-support';

const TOKEN = 'metrics-token';
const app = useTestApp({}, { afterClose: () => reportStreamsFrom(undefined) });
const auth = { headers: { authorization: `Bearer ${TOKEN}` } };

/** Runs `work` with DASHBOARD_AUTH_TOKEN set, as a server started with it would. */
async function withToken(work: () => Promise<void>) {
  process.env.DASHBOARD_AUTH_TOKEN = TOKEN;
  resetConfig();
  try {
    await work();
  } finally {
    delete process.env.DASHBOARD_AUTH_TOKEN;
    resetConfig();
  }
}

/** `name{a="x",b="y"} 3` lines of the Prometheus text format, as {name, labels, value}. */
function samples(text: string) {
  return text
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((line) => {
      const m = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!m) throw new Error(`not a sample line: ${line}`);
      const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
      return { name: m[1]!, labels, value: Number(m[3]) };
    });
}

function value(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  return samples(text).find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

describe('GET /api/metrics', () => {
  it('follows the bearer rules of every route', async () => {
    await withToken(async () => {
      expect((await app.http('GET', '/api/metrics')).status).toBe(401);
      expect((await app.call('GET', '/api/metrics')).status).toBe(401);
      expect((await app.http('GET', '/api/metrics', auth)).status).toBe(200);
    });
  });

  it('answers the Prometheus text format with requests by route template, method and status, and their latency', async () => {
    await app.call('GET', '/api/tasks/00000000-0000-4000-8000-000000000000', auth);
    await app.call('GET', '/api/tasks/00000000-0000-4000-8000-000000000001', auth);
    const res = await app.http('GET', '/api/metrics', auth);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const labels = { route: '/api/tasks/{id}', method: 'GET', status: '404' };
    expect(value(res.text, 'fleet_http_requests_total', labels)).toBe(2);
    expect(value(res.text, 'fleet_http_request_duration_seconds_count', labels)).toBe(2);
    expect(res.text).not.toContain('00000000-0000-4000-8000-000000000001');
  });

  it('counts dispatcher ticks and their outcomes, and reads runs by status, stuck runs and budgets at scrape time', async () => {
    const clock = fakeTime(app);
    fakeRuntime(app);
    const type = await templateWithRoute(app);
    await createRun(app, type);
    await createRun(app, type);
    const before = value((await app.call('GET', '/api/metrics', auth)).body, 'fleet_dispatcher_runs_total', { outcome: 'dispatched' }) ?? 0;
    await tick(app);
    const budget = await app.call('POST', '/api/budgets', {
      body: { name: 'fleet cap', scope: 'fleet', period: 'monthly', cap_usd: 10, action_on_exceed: 'warn' },
    });
    expect(budget.status, JSON.stringify(budget.body)).toBe(201);
    clock.advance(60 * 60_000);
    const text = (await app.call('GET', '/api/metrics', auth)).body as string;
    expect(value(text, 'fleet_dispatcher_runs_total', { outcome: 'dispatched' })).toBe(before + 2);
    expect(value(text, 'fleet_dispatcher_runs_total', { outcome: 'woken' })).toBeGreaterThanOrEqual(2);
    expect(value(text, 'fleet_dispatcher_tick_duration_seconds_count', { source: 'api' })).toBeGreaterThanOrEqual(1);
    expect(value(text, 'fleet_workflow_runs', { status: 'dispatched' })).toBe(2);
    // an hour later nobody claimed them: the next tick would recover both
    expect(value(text, 'fleet_workflow_runs_stuck', { reason: 'unclaimed' })).toBe(2);
    expect(value(text, 'fleet_budgets', { status: 'under' })).toBe(1);
    expect(value(text, 'fleet_db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
    // the tick's pass folded the audit rows before it; the budget's creation wrote one since
    expect(value(text, 'fleet_audit_search_pending')).toBe(1);
    await tick(app);
    expect(value((await app.call('GET', '/api/metrics', auth)).body as string, 'fleet_audit_search_pending')).toBe(0);
  });

  it('reports SSE clients and the outbox lag behind the slowest connected stream', async () => {
    const first = (await app.call('GET', '/api/metrics', auth)).body as string;
    const newest = value(first, 'fleet_outbox_newest_event_id')!;
    expect(newest).toBeGreaterThan(0);
    expect(value(first, 'fleet_outbox_lag_events')).toBe(0);
    reportStreamsFrom(() => ({ clients: 3, slowestPosition: newest - 5 }));
    const text = (await app.call('GET', '/api/metrics', auth)).body as string;
    expect(value(text, 'fleet_sse_clients')).toBe(3);
    expect(value(text, 'fleet_outbox_lag_events')).toBe(5);
  });

  it("reports this process's memory by kind, Buffers outside the heap among it", async () => {
    const before = (await app.call('GET', '/api/metrics', auth)).body as string;
    const kind = (text: string, k: string) => value(text, 'fleet_process_memory_bytes', { kind: k })!;
    expect(kind(before, 'rss')).toBeGreaterThanOrEqual(kind(before, 'heap_total'));
    expect(kind(before, 'heap_total')).toBeGreaterThanOrEqual(kind(before, 'heap_used'));
    expect(kind(before, 'heap_used')).toBeGreaterThan(0);
    expect(kind(before, 'external')).toBeGreaterThanOrEqual(kind(before, 'array_buffers'));
    // held across the second scrape; the slack is for short-lived buffers collected in between
    const held = Buffer.alloc(64 * 1024 * 1024, 1);
    const after = (await app.call('GET', '/api/metrics', auth)).body as string;
    expect(kind(after, 'array_buffers') - kind(before, 'array_buffers')).toBeGreaterThanOrEqual(held.length - 8 * 1024 * 1024);
    expect(kind(after, 'external') - kind(before, 'external')).toBeGreaterThanOrEqual(held.length - 8 * 1024 * 1024);
    expect(held[held.length - 1]).toBe(1);
  });
});
