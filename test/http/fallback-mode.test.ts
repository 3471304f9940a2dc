import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../infra/app-context';
import { fallbackPath, FallbackWriter } from '../../infra/db/fallback-file';
import { startFallbackContext } from '../support/fallback-context';
import { freePort } from '../support/free-port';
import { useTestApp } from '../support/use-app';

/** A TCP relay to the test database that can be switched on later: "the database comes back". */
function relayTo(target: URL) {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  return {
    server,
    listen: (port: number) => new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r())),
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const app = useTestApp();
let fallbackCtx: AppContext;
let relay: ReturnType<typeof relayTo>;
let projectId: string;
let listedFromDatabase: string;

beforeAll(async () => {
  const created = await app.call('POST', '/api/projects', { body: { name: 'Kept safe' } });
  projectId = created.body.id;
  await app.db.query(`INSERT INTO tasks (id, project_id, title, status) VALUES (gen_random_uuid(), $1, 'done', 'completed')`, [projectId]);
  await new FallbackWriter(app.db, fallbackPath(app.dataDir)).refresh(new Date());
  listedFromDatabase = (await app.call('GET', '/api/tasks/all')).text;

  const target = new URL(app.databaseUrl);
  const port = await freePort();
  relay = relayTo(target);
  fallbackCtx = await startFallbackContext(app, { reconnectIntervalMs: 100, port });
  (relay as { port?: number }).port = port;
});

afterAll(async () => {
  await fallbackCtx?.close();
  await relay?.close();
});

describe('fallback mode (DATABASE_URL set but unreachable at start)', () => {
  it('names the read-only mode in /api/health and health-status', async () => {
    const health = await app.call('GET', '/api/health');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({
      status: 'degraded',
      task_storage: 'fallback-file',
      storage_mode: 'fallback-readonly',
      db_latency_ms: -1,
    });
    expect(health.body.storage_note).toMatch(/fallback/);
    const status = await app.call('GET', '/api/health-status');
    expect(status.body.database).toEqual({ status: 'unavailable', healthy: false, mode: 'fallback-readonly' });
  });

  it('serves projects and stats read-only from the saved copy', async () => {
    const list = await app.call('GET', '/api/projects');
    expect(list.status).toBe(200);
    expect(list.body.map((p: { name: string }) => p.name)).toEqual(['Kept safe']);
    expect((await app.call('GET', `/api/projects/${projectId}`)).body.name).toBe('Kept safe');
    expect((await app.call('GET', '/api/projects/default')).body.task_counts).toMatchObject({ total: 1, completed: 1 });
    expect((await app.call('GET', '/api/stats')).body).toEqual({ projects: 1, tasks: 1, completed: 1 });
  });

  it('lists the saved tasks exactly as the database listed them (the API columns, nothing derived)', async () => {
    const list = await app.call('GET', '/api/tasks/all');
    expect(list.status).toBe(200);
    expect(list.text).toBe(listedFromDatabase);
    expect(list.body[0]).toHaveProperty('lock_token');
    expect(list.body[0]).not.toHaveProperty('json_segments');
  });

  it('answers every write with 503 and a JSON error', async () => {
    const create = await app.call('POST', '/api/projects', { body: { name: 'nope' } });
    expect(create.status).toBe(503);
    expect(create.body.error).toMatch(/database unavailable/);
    expect((await app.call('PATCH', `/api/projects/${projectId}`, { body: { name: 'x' } })).status).toBe(503);
    expect((await app.call('DELETE', `/api/projects/${projectId}`)).status).toBe(503);
  });

  it('reconnects when the database returns, and writes work again', async () => {
    await relay.listen((relay as { port?: number }).port!);
    await expect
      .poll(async () => (await app.call('GET', '/api/health')).body.storage_mode, { timeout: 10_000, interval: 50 })
      .toBe('external');
    const create = await app.call('POST', '/api/projects', { body: { name: 'After reconnect' } });
    expect(create.status).toBe(201);
  });
});
