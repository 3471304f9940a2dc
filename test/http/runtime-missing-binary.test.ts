import { describe, expect, it } from 'vitest';
import { clearFakeRuntimeEnv, fixtureStateDir } from '../fixtures/runtime/fake-runtime-env';
import { useTestApp } from '../support/use-app';

const app = useTestApp(
  { env: { RUNTIME_CLI: '/nonexistent/bin/runtime', RUNTIME_STATE_DIR: fixtureStateDir } },
  { afterClose: clearFakeRuntimeEnv },
);

describe('a missing runtime executable', () => {
  it('makes every proxy answer 502 with failure unavailable', async () => {
    for (const [method, path] of [
      ['GET', '/api/runtime/health'],
      ['GET', '/api/runtime/tasks'],
      ['GET', '/api/runtime/tasks/audit'],
      ['GET', '/api/runtime/agents'],
      ['POST', '/api/runtime/memory/index'],
      ['GET', '/api/runtime/memory/promote'],
    ] as const) {
      const res = await app.http(method, path);
      expect(res.status, path).toBe(502);
      expect(res.body.failure, path).toBe('unavailable');
      expect(res.body.error).toMatch(/not found or not executable/);
    }
  });
});

describe('health-status without a runtime', () => {
  it('reports the gateway unavailable, leaves the cron check out, and degrades the overall status', async () => {
    const res = await app.http('GET', '/api/health-status');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('degraded');
    expect(res.body.gateway).toMatchObject({ status: 'unavailable', healthy: false, agent_count: 0, failure: 'unavailable' });
    expect(res.body.checks).not.toHaveProperty('cron');
  });

  it('lists no runtime jobs but still answers 200 with runtime.ok false', async () => {
    const res = await app.http('GET', '/api/cron/jobs');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ jobs: [], runtime: { ok: false, failure: 'unavailable' } });
    expect((await app.http('POST', '/api/cron/jobs/daily-digest/run')).status).toBe(500);
  });
});
