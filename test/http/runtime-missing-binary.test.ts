import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clearFakeRuntimeEnv, fixtureStateDir } from '../fixtures/runtime/fake-runtime-env';
import { startTestApp, type TestApp } from '../support/test-app';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ env: { RUNTIME_CLI: '/nonexistent/bin/runtime', RUNTIME_STATE_DIR: fixtureStateDir } });
});
afterAll(async () => {
  clearFakeRuntimeEnv();
  await app?.close();
});

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
