import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChild, type Child } from '../support/child-process';
import { createTestDatabase } from '../support/test-app';

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const { port } = s.address() as net.AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let offline: Child | undefined;

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  if (offline && offline.proc.exitCode === null) {
    offline.proc.kill('SIGINT');
    await offline.exited;
  }
  await database?.drop();
});

describe('serverless offline', () => {
  it('serves the same handlers: /api/health and a project round trip', async () => {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: database.url, PORT: String(port), SLS_TELEMETRY_DISABLED: '1', LOG_LEVEL: 'WARN' };
    delete env.DASHBOARD_AUTH_TOKEN;
    offline = startChild(process.execPath, [path.resolve('node_modules/serverless/bin/serverless.js'), 'offline', 'start'], { env });
    await offline.waitFor(/Server ready/, 60_000);
    const health = await fetch(`http://127.0.0.1:${port}/api/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', task_storage: 'database' });
    const created = await fetch(`http://127.0.0.1:${port}/api/projects`, { method: 'POST', body: JSON.stringify({ name: 'Offline' }), headers: { 'content-type': 'application/json' } });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const got = await fetch(`http://127.0.0.1:${port}/api/projects/${id}`);
    expect(((await got.json()) as { name: string }).name).toBe('Offline');
  });
});
