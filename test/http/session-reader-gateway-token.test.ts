import { afterAll, describe, expect, it } from 'vitest';
import { releasedHistory, startFakeGateway } from '../fixtures/runtime/fake-gateway';
import { useFakeRuntimeApp } from '../support/use-app';

/* The server configured with a token the gateway does not accept: its 401 is a clear error, the token never in it. */
const gateway = await startFakeGateway('the-right-token');
afterAll(() => gateway.close());

const WRONG = 'wrong-token-9d2e7c';
const app = useFakeRuntimeApp({ RUNTIME_GATEWAY_URL: gateway.url, RUNTIME_GATEWAY_TOKEN: WRONG });

describe('a gateway token the gateway refuses', () => {
  it('the session list and a transcript are a 502 saying the token was refused, naming the variable, never the token', async () => {
    for (const target of ['/api/rt/sessions?agent=main', `/api/rt/sessions/${releasedHistory.sessionId}/events?agent=main`]) {
      const res = await app.http('GET', target);
      expect(res.status).toBe(502);
      expect(res.body).toMatchObject({ code: 'runtime_failed', failure: 'failed' });
      expect(res.body.error).toMatch(/refused this server's token \(401 Unauthorized\); set RUNTIME_GATEWAY_TOKEN/);
      expect(JSON.stringify(res.body)).not.toContain(WRONG);
    }
  });

  it('health-status says the gateway is the way in use and that it does not answer, without the token', async () => {
    const res = await app.http('GET', '/api/health-status');
    expect(res.body.runtime_access).toMatchObject({ way: 'gateway', healthy: false, status: 'not_answering', failure: 'failed' });
    expect(JSON.stringify(res.body)).not.toContain(WRONG);
  });
});
