import { readFile, symlink, mkdtemp, cp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRunner, type Runner } from '../../infra/http/runner';
import { staticUi } from '../../infra/http/static-ui';
import { useTestApp } from '../support/use-app';

/** DASHBOARD_UI_DIR: a small fixture front end served by the runner at `/`, the API untouched. */
const app = useTestApp({ env: { DASHBOARD_AUTH_TOKEN: 'ui-test-token' } });
let runner: Runner;
let uiDir: string;
beforeAll(async () => {
  uiDir = await mkdtemp(path.join(os.tmpdir(), 'ui-fixture-'));
  await cp(path.resolve('test/fixtures/ui'), uiDir, { recursive: true });
  // a link that points out of the directory must not be followed
  await symlink('/etc/hostname', path.join(uiDir, 'escape.txt'));
  runner = await startRunner({ host: '127.0.0.1', port: 0, largeBodyLimit: 1024, staticUi: await staticUi(uiDir) });
});
afterAll(async () => {
  await runner?.close();
  await rm(uiDir, { recursive: true, force: true });
});

/** node:http, so that `..` and odd encodings reach the server as written. */
function request(
  rawPath: string,
  method = 'GET',
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  const url = new URL(runner.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: rawPath, method, headers }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('DASHBOARD_UI_DIR static serving', () => {
  it('serves index.html at / and files with their content types, without a token', async () => {
    const index = await request('/');
    expect(index.status).toBe(200);
    expect(index.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(index.text).toBe(await readFile(path.join(uiDir, 'index.html'), 'utf8'));
    const cases: Array<[string, string]> = [
      ['/assets/app.js', 'text/javascript; charset=utf-8'],
      ['/assets/app.css', 'text/css; charset=utf-8'],
      ['/manifest.webmanifest', 'application/manifest+json'],
      ['/index.html', 'text/html; charset=utf-8'],
    ];
    for (const [file, type] of cases) {
      const res = await request(file);
      expect(res.status, file).toBe(200);
      expect(res.headers['content-type'], file).toBe(type);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
    const head = await request('/assets/app.js', 'HEAD');
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(Number(head.headers['content-length'])).toBeGreaterThan(0);
  });

  it('falls back to index.html for client-side routes, serves a directory only through its index.html, and 404s a missing asset', async () => {
    const route = await request('/tasks/board');
    expect(route.status).toBe(200);
    expect(route.text).toContain('fixture front end');
    expect((await request('/docs')).text).toContain('<title>docs</title>');
    // a directory without index.html is never listed: the app's index answers instead
    const assets = await request('/assets/');
    expect(assets.text).toBe(await readFile(path.join(uiDir, 'index.html'), 'utf8'));
    const missing = await request('/assets/missing.js');
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.text)).toMatchObject({ code: 'not_found' });
  });

  it('refuses paths that leave the directory: .., encoded .., and a symlink out', async () => {
    for (const p of ['/assets/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd', '/..%5c..%5cetc%5cpasswd', '/escape.txt', '/a%00b']) {
      const res = await request(p);
      expect(res.status, p).toBe(403);
      expect(res.text).not.toContain('root:');
    }
    expect((await request('/%E0%A4%A')).status).toBe(400);
    // `..` and `%2e%2e` segments are resolved by URL parsing before the file system sees them: they stay inside
    expect((await request('/assets/../index.html')).status).toBe(200);
    const resolved = await request('/%2e%2e/%2e%2e/etc/passwd');
    expect(resolved.text).toBe(await readFile(path.join(uiDir, 'index.html'), 'utf8'));
  });

  it('leaves /api/* to the API: its auth, its 404s, and other methods untouched', async () => {
    expect((await request('/api/projects')).status).toBe(401);
    const ok = await request('/api/projects', 'GET', { authorization: 'Bearer ui-test-token' });
    expect(ok.status).toBe(200);
    expect(ok.headers['content-type']).toMatch(/application\/json/);
    const unknown = await request('/api/no-such-route', 'GET', { authorization: 'Bearer ui-test-token' });
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.text)).toMatchObject({ code: 'not_found' });
    expect((await request('/', 'POST')).status).toBe(404);
    expect((await request('/api/projects', 'OPTIONS')).status).toBe(204);
  });
});
