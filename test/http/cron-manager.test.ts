import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CRON_ADMIN_JOBS_PATH, hostnameOf, startCronManager, type CronManager } from '../../infra/cron-manager/cron-manager-server';
import { useFakeRuntimeApp } from '../support/use-app';

const TOKEN = 'cron-manager-test-token';
const app = useFakeRuntimeApp();
let manager: CronManager;
let open: CronManager;

beforeAll(async () => {
  manager = await startCronManager({ ctx: app.ctx, port: 0, authToken: TOKEN });
  open = await startCronManager({ ctx: app.ctx, port: 0, authToken: undefined });
});
afterAll(async () => {
  await manager?.close();
  await open?.close();
});

/** node:http, because fetch will not let a test choose the Host header. */
function get(
  base: string,
  path: string,
  headers: Record<string, string>,
  method = 'GET',
): Promise<{ status: number; body: any; headers: http.IncomingHttpHeaders }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method, headers }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the cron-manager server', () => {
  it('lists the scheduled jobs at /api/cron-admin/jobs with the token and a loopback Host', async () => {
    const res = await get(manager.url, CRON_ADMIN_JOBS_PATH, {
      host: `127.0.0.1:${new URL(manager.url).port}`,
      authorization: `Bearer ${TOKEN}`,
    });
    expect(res.status).toBe(200);
    expect(res.body.jobs.map((j: { id: string }) => j.id)).toEqual(['daily-digest', 'inbox-poll', 'launch-reminder']);
    for (const host of ['localhost', 'localhost:3878', '[::1]:3878', '127.0.0.1']) {
      expect((await get(manager.url, '/api/cron-admin/jobs', { host, authorization: `Bearer ${TOKEN}` })).status, host).toBe(200);
    }
  });

  it('refuses a non-loopback Host header with 403 even with the right token (DNS rebinding)', async () => {
    for (const host of ['evil.example', 'evil.example:3878', '127.0.0.1.evil.example', '10.0.0.8', '0.0.0.0']) {
      const res = await get(manager.url, '/api/cron-admin/jobs', { host, authorization: `Bearer ${TOKEN}` });
      expect(res.status, host).toBe(403);
      // the one 403 body of the API: {error: 'forbidden', code, reason}
      expect(res.body).toMatchObject({ error: 'forbidden', code: 'forbidden' });
      expect(res.body.reason).toMatch(/loopback/);
    }
  });

  it('requires the bearer token: missing or wrong is 401', async () => {
    const host = 'localhost';
    expect((await get(manager.url, '/api/cron-admin/jobs', { host })).status).toBe(401);
    expect((await get(manager.url, '/api/cron-admin/jobs', { host, authorization: 'Bearer nope' })).status).toBe(401);
    expect((await get(manager.url, '/api/cron-admin/jobs', { host, authorization: TOKEN })).status).toBe(401);
  });

  it('refuses everything when no token is configured, saying why', async () => {
    const res = await get(open.url, '/api/cron-admin/jobs', { host: 'localhost' });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatch(/DASHBOARD_AUTH_TOKEN/);
  });

  it('answers a browser preflight (OPTIONS) with 204 and the CORS headers without a token, configured or not', async () => {
    for (const server of [manager, open]) {
      const res = await get(
        server.url,
        CRON_ADMIN_JOBS_PATH,
        {
          host: 'localhost',
          origin: 'http://localhost:5173',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'authorization',
        },
        'OPTIONS',
      );
      expect(res.status).toBe(204);
      expect(res.body).toBeUndefined();
      expect(res.headers).toMatchObject({ 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET, OPTIONS' });
      expect(res.headers['access-control-allow-headers']).toMatch(/Authorization/);
    }
    // the DNS-rebinding check still comes first
    expect((await get(manager.url, CRON_ADMIN_JOBS_PATH, { host: 'evil.example' }, 'OPTIONS')).status).toBe(403);
  });

  it('answers other paths with 404 JSON', async () => {
    const res = await get(manager.url, '/api/cron/jobs', { host: 'localhost', authorization: `Bearer ${TOKEN}` });
    expect(res.status).toBe(404);
  });

  it('reads the host part of Host headers', () => {
    expect(hostnameOf('[::1]:80')).toBe('::1');
    expect(hostnameOf('localhost:1')).toBe('localhost');
    expect(hostnameOf('a:b:c')).toBeUndefined();
    expect(hostnameOf(undefined)).toBeUndefined();
  });
});
