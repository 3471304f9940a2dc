import { describe, expect, it } from 'vitest';
import { clearFakeRuntimeEnv, fakeRuntimeEnv } from '../fixtures/runtime/fake-runtime-env';
import { useTestApp } from '../support/use-app';

// useTestApp, not useFakeRuntimeApp: that one puts the fake back to answering after each test, and every test here needs it hung.
const app = useTestApp(
  { env: fakeRuntimeEnv({ FAKE_RUNTIME_MODE: 'hang', RUNTIME_CLI_TIMEOUT_MS: '500' }) },
  { afterClose: clearFakeRuntimeEnv },
);

describe('a runtime that never answers (RUNTIME_CLI_TIMEOUT_MS)', () => {
  it('GET /api/runtime/health answers 502 timed_out once the timeout passes', async () => {
    const res = await app.http('GET', '/api/runtime/health');
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ code: 'runtime_failed', failure: 'timed_out' });
    expect(res.body.error).toMatch(/500 ms/);
  });

  it('GET /api/runtime/agents and tasks time out the same way', async () => {
    for (const path of ['/api/runtime/agents', '/api/runtime/tasks']) {
      const res = await app.http('GET', path);
      expect(res.status, path).toBe(502);
      expect(res.body.failure).toBe('timed_out');
    }
  });
});
