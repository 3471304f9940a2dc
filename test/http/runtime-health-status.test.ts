import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { movableClock } from '../support/fakes';
import { setFakeMode } from '../fixtures/runtime/fake-runtime-env';
import { useFakeRuntimeApp } from '../support/use-app';

const app = useFakeRuntimeApp();

describe('GET /api/health-status with the runtime', () => {
  it('reports the gateway connected with its agent count, and the cron check', async () => {
    const res = await app.http('GET', '/api/health-status');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('healthy');
    expect(res.body.gateway).toEqual({
      status: 'connected',
      healthy: true,
      agent_count: 2,
      heartbeat_seconds: 7200,
      default_agent_id: 'main',
    });
    expect(res.body.checks.gateway_sync).toEqual({ healthy: true, status: 'connected', count: 2 });
    expect(res.body.checks.cron).toEqual({ healthy: false, status: 'failing_jobs', count: 3, failing: 1 });
    expect(res.body.database).toEqual({ status: 'connected', healthy: true, mode: 'database' });
    expect(res.body.task_server).toEqual({ healthy: true, status: 'running' });
    // no gateway configured: sessions are read from the state directory's files
    expect(res.body.runtime_access).toEqual({ way: 'cli+files', healthy: true, status: 'answering' });
  });

  it('degrades honestly when the runtime health call fails, naming the failure', async () => {
    setFakeMode('error-payload', 'health');
    const res = await app.http('GET', '/api/health-status');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('degraded');
    expect(res.body.gateway).toMatchObject({ status: 'error', healthy: false, agent_count: 0, failure: 'failed' });
    expect(res.body.gateway.reason).toMatch(/offline/);
    expect(res.body.checks).not.toHaveProperty('cron');
    expect(res.body.runtime_access).toEqual({ way: 'cli+files', healthy: false, status: 'not_answering' });
  });

  it('keeps the gateway and reports a failing cron check when only the cron call fails', async () => {
    setFakeMode('exit', 'cron list');
    const res = await app.http('GET', '/api/health-status');
    expect(res.body.status).toBe('healthy');
    expect(res.body.checks.cron).toMatchObject({ healthy: false, status: 'error' });
  });
});

describe('GET /api/citation-queue/status', () => {
  const queueFile = () => path.join(app.dataDir, 'citation-queue.json');

  it('answers zeros when there is no queue file', async () => {
    app.ctx.deps.clock = movableClock('2026-11-01T12:00:00.000Z');
    const res = await app.http('GET', '/api/citation-queue/status');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, pending: 0, total: 0, timestamp: '2026-11-01T12:00:00.000Z' });
  });

  it('counts pending and total entries of the queue file', async () => {
    await writeFile(
      queueFile(),
      JSON.stringify([{ id: 1, status: 'pending' }, { id: 2, status: 'done' }, { id: 3 }, { id: 4, status: 'queued' }]),
    );
    expect((await app.http('GET', '/api/citation-queue/status')).body).toMatchObject({ success: true, pending: 3, total: 4 });
    await writeFile(queueFile(), JSON.stringify({ items: [{ status: 'done' }] }));
    expect((await app.http('GET', '/api/citation-queue/status')).body).toMatchObject({ success: true, pending: 0, total: 1 });
  });

  it('answers success false with the reason for a corrupt queue file, never a 500', async () => {
    await writeFile(queueFile(), '{"items": [');
    const res = await app.http('GET', '/api/citation-queue/status');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: false, pending: 0, total: 0, error: expect.stringMatching(/JSON/) });
    await writeFile(queueFile(), '42');
    expect((await app.http('GET', '/api/citation-queue/status')).body.success).toBe(false);
  });
});
