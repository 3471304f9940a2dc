import { describe, expect, it } from 'vitest';
import { routes } from '../../handlers/routes';
import { useTestApp } from '../support/use-app';

const TOKEN = 'http-token-93c2';
const app = useTestApp({ env: { DASHBOARD_AUTH_TOKEN: TOKEN } });

const concrete = (path: string) => path.replace(/:[A-Za-z]+/g, '00000000-0000-4000-8000-000000000000');

describe('authentication through the runner', () => {
  it('answers 401 on every non-public route without the token, and never 401 on public ones', async () => {
    for (const route of routes) {
      const res = await app.http(route.method, concrete(route.path), { body: route.method === 'GET' ? undefined : {} });
      if (route.public) expect(res.status, route.path).not.toBe(401);
      else expect(res.status, `${route.method} ${route.path}`).toBe(401);
    }
  });

  it('lets the preflight through without a token', async () => {
    expect((await app.http('OPTIONS', '/api/projects')).status).toBe(204);
  });

  it('serves with the token', async () => {
    const res = await app.http('GET', '/api/stats', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
  });
});
