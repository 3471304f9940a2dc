import { describe, expect, it } from 'vitest';
import packageJson from '../../package.json';
import { buildGovernancePolicySummary } from '../../core/workflows/governance';
import { webhookEventTypes } from '../../core/webhooks/event-types';
import { setFakeMode } from '../fixtures/runtime/fake-runtime-env';
import { useFakeRuntimeApp } from '../support/use-app';
import { uniqueName } from './workflow-support';

/** GET /api/settings/overview (docs/console-api.md): the Settings screen's one read beside the webhooks, against the fake runtime. */
const app = useFakeRuntimeApp();

async function overview() {
  const res = await app.call('GET', '/api/settings/overview');
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

describe('GET /api/settings/overview', () => {
  it('answers the server, the routing entries, the governance policy, the runtime health and its scheduled jobs', async () => {
    const type = uniqueName('overview');
    expect((await app.call('POST', '/api/workflow-templates', { body: { name: type, steps: ['draft'] } })).status).toBe(201);
    const put = await app.call('PUT', `/api/workflow-routing/${type}`, {
      body: { agent_id: 'writer', max_concurrent: 2, exclusive_per_task: true, expected_cost_usd: 1.5, expected_tokens: 20000 },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const body = await overview();
    expect(body.server).toEqual({
      version: packageJson.version,
      status: 'ok',
      storage_mode: expect.stringMatching(/^(embedded|external)$/),
      storage_label: expect.any(String),
      storage_note: null,
      db_latency_ms: expect.any(Number),
      started_at: app.ctx.startedAt.toISOString(),
      uptime_seconds: expect.any(Number),
      metrics_path: '/api/metrics',
      openapi_path: '/api/openapi.json',
    });
    // each section as its own route answers it
    expect(body.routing).toEqual((await app.call('GET', '/api/workflow-routing')).body.routes);
    expect(body.routing.find((r: { workflow_type: string }) => r.workflow_type === type)).toMatchObject({
      agent_id: 'writer',
      max_concurrent: 2,
      exclusive_per_task: true,
      expected_cost_usd: 1.5,
      expected_tokens: 20000,
    });
    expect(body.governance.actions).toEqual(buildGovernancePolicySummary());
    expect(body.governance.privileged_actors).toEqual(['system', 'dashboard-operator', 'runtime']);
    expect(body.governance.operator_name_patterns).toEqual(['^ops-', '-operator$', '-controller$', '-director$']);
    const { source, ...health } = (await app.call('GET', '/api/runtime/health')).body;
    expect(body.runtime).toEqual({ available: true, source, ...health });
    const jobs = (await app.call('GET', '/api/cron/jobs')).body;
    expect(body.scheduled_jobs).toEqual({ ...jobs, jobs: jobs.jobs.map(({ _raw, ...job }: { _raw: unknown }) => job) });
    expect(body.scheduled_jobs.jobs.map((j: { id: string }) => j.id)).toEqual(['daily-digest', 'inbox-poll', 'launch-reminder']);
    expect(body.webhook_event_types).toEqual(webhookEventTypes);
  });

  it('still answers 200 when the runtime fails: the runtime section says how, the jobs say the runtime did not list them', async () => {
    setFakeMode('exit');
    const body = await overview();
    expect(body.runtime).toEqual({ available: false, failure: 'failed', error: expect.any(String) });
    expect(body.scheduled_jobs.runtime).toMatchObject({ ok: false, failure: 'failed' });
    expect(body.scheduled_jobs.jobs).toEqual([]);
    expect(body.server.status).toBe('ok');
  });

  it('reads only: no audit row and no event', async () => {
    const before = await app.db.query<{ audit: number; events: number }>(
      'SELECT (SELECT count(*)::int FROM audit_log) AS audit, (SELECT count(*)::int FROM event_outbox) AS events',
    );
    await overview();
    const after = await app.db.query<{ audit: number; events: number }>(
      'SELECT (SELECT count(*)::int FROM audit_log) AS audit, (SELECT count(*)::int FROM event_outbox) AS events',
    );
    expect(after.rows[0]).toEqual(before.rows[0]);
  });
});
