import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppContext, setAppContext, type AppContext } from '../../infra/app-context';
import { parseConfig } from '../../infra/config';
import { useTestApp } from '../support/use-app';

/*
 * A database that stops answering (SIGSTOP: connections stay open, nothing
 * replies). A TCP proxy between the server and its database stops forwarding, which is what the
 * server sees; no test waits on a clock: each request below would hang forever without the timeouts.
 */

interface FreezableProxy {
  url: string;
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

async function freezableProxy(target: string): Promise<FreezableProxy> {
  const upstream = new URL(target);
  let frozen = false;
  const pairs = new Set<{ client: net.Socket; server: net.Socket | undefined }>();
  const link = (pair: { client: net.Socket; server: net.Socket | undefined }) => {
    pair.server ??= net.connect(Number(upstream.port), upstream.hostname);
    pair.server.on('error', () => pair.client.destroy());
    pair.client.pipe(pair.server);
    pair.server.pipe(pair.client);
  };
  const server = net.createServer((client) => {
    const pair = { client, server: undefined as net.Socket | undefined };
    pairs.add(pair);
    client.on('error', () => pair.server?.destroy());
    client.on('close', () => {
      pair.server?.destroy();
      pairs.delete(pair);
    });
    // accepted but never answered while frozen, as a stopped postmaster's listen backlog does
    if (!frozen) link(pair);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxied = new URL(target);
  proxied.hostname = '127.0.0.1';
  proxied.port = String((server.address() as AddressInfo).port);
  return {
    url: proxied.toString(),
    freeze() {
      frozen = true;
      for (const pair of pairs) {
        pair.client.unpipe();
        pair.server?.unpipe();
        pair.client.pause();
        pair.server?.pause();
      }
    },
    thaw() {
      frozen = false;
      for (const pair of pairs) link(pair);
    },
    async close() {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.server?.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const app = useTestApp();
let proxy: FreezableProxy;
let hung: AppContext;
let taskId: string;

beforeAll(async () => {
  const project = await app.call('POST', '/api/projects', { body: { name: 'Hung' } });
  const task = await app.call('POST', '/api/tasks', { body: { project_id: project.body.id, title: 'reachable' } });
  taskId = task.body.id;
  proxy = await freezableProxy(app.databaseUrl);
  // a server configured through the documented variables, talking to its database through the proxy
  hung = await createAppContext(
    parseConfig({
      DATABASE_URL: proxy.url,
      DATA_DIR: app.dataDir,
      DB_STATEMENT_TIMEOUT_MS: '1000',
      DB_CONNECT_TIMEOUT_MS: '1000',
      LOG_LEVEL: 'SILENT',
    }),
  );
  setAppContext(hung);
});
afterAll(async () => {
  proxy?.thaw();
  setAppContext(app.ctx);
  await hung?.close();
  await proxy?.close();
});

describe('a database that stops answering', () => {
  it('health answers degraded, reads and writes answer 503, and everything recovers when it answers again', async () => {
    // warm the pool, so that connections already open are the ones that hang
    const warm = await Promise.all([
      app.http('GET', `/api/tasks/${taskId}`),
      app.http('GET', '/api/health'),
      app.http('GET', '/api/projects'),
    ]);
    expect(warm.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(warm[1]!.body.status).toBe('ok');

    proxy.freeze();
    const health = await app.http('GET', '/api/health');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({
      status: 'degraded',
      task_storage: 'database',
      db_latency_ms: -1,
      storage_note: 'database did not answer the health probe',
    });

    const replies = await Promise.all([
      app.http('GET', `/api/tasks/${taskId}`),
      app.http('GET', '/api/projects'),
      app.http('PATCH', `/api/tasks/${taskId}`, { body: { title: 'while hung' } }),
      app.http('GET', '/api/audit'),
    ]);
    for (const r of replies) {
      expect(r.status, r.text).toBe(503);
      expect(r.body.code).toBe('storage_unavailable');
    }
    // connections opened while it is hung give up too (the connect timeout)
    const fresh = await app.http('GET', `/api/tasks/${taskId}`);
    expect(fresh.status).toBe(503);

    proxy.thaw();
    const back = await app.http('GET', `/api/tasks/${taskId}`);
    expect(back.status, back.text).toBe(200);
    expect(back.body.title).toBe('reachable');
    expect((await app.http('GET', '/api/health')).body.status).toBe('ok');
    expect((await app.http('PATCH', `/api/tasks/${taskId}`, { body: { title: 'after' } })).status).toBe(200);
  }, 60_000);
});
