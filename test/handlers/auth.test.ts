import { describe, expect, it } from 'vitest';
import { routes } from '../../handlers/routes';
import { useTestApp } from '../support/use-app';

const TOKEN = 'test-token-4d1f9b';
const app = useTestApp({ env: { DASHBOARD_AUTH_TOKEN: TOKEN } });

/** A concrete path for a route pattern: every parameter becomes a well-formed UUID. */
const concrete = (path: string) => path.replace(/:[A-Za-z]+/g, '00000000-0000-4000-8000-000000000000');

describe('bearer token (DASHBOARD_AUTH_TOKEN set)', () => {
  it('refuses every non-public route of the route table with 401 and a JSON error when the token is missing or wrong', async () => {
    const guarded = routes.filter((r) => !r.public && !r.runnerOnly);
    expect(guarded.length).toBeGreaterThan(0);
    for (const route of guarded) {
      for (const headers of [
        {} as Record<string, string>,
        { authorization: `Bearer ${TOKEN}x` },
        { authorization: TOKEN },
        { authorization: 'Basic abc' },
      ]) {
        const res = await app.call(route.method, concrete(route.path), { headers, body: {} });
        expect(res.status, `${route.method} ${route.path} with ${JSON.stringify(headers)}`).toBe(401);
        expect(res.body.error).toMatch(/token/);
        expect(res.headers['access-control-allow-origin']).toBe('*');
      }
    }
  });

  it('lets the public routes through without a token', async () => {
    expect((await app.call('GET', '/api/health')).status).toBe(200);
    const self = await app.call('GET', '/api/auth/self');
    expect(self.status).toBe(200);
    expect(self.body).toMatchObject({ authenticated: false, tokenRequired: true });
  });

  it('accepts the right token, with any case of the scheme name', async () => {
    expect((await app.call('GET', '/api/projects', { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    expect((await app.call('GET', '/api/projects', { headers: { authorization: `bearer ${TOKEN}` } })).status).toBe(200);
    const self = await app.call('GET', '/api/auth/self', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(self.body).toMatchObject({ authenticated: true, tokenRequired: true });
  });

  it('checks the token before reading the body, so a malformed body without a token is still 401', async () => {
    const res = await app.call('POST', '/api/projects', { raw: '{oops' });
    expect(res.status).toBe(401);
  });
});
