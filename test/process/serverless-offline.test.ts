import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeRuntimePath, fixtureStateDir } from '../fixtures/runtime/fake-runtime-env';
import { startChild, type Child } from '../support/child-process';
import { freePort } from '../support/free-port';
import { createTestDatabase } from '../support/test-app';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
const running: Child[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  for (const child of running) {
    if (child.proc.exitCode === null && child.proc.signalCode === null) {
      child.proc.kill('SIGINT');
      await child.exited;
    }
  }
  await database?.drop();
});

const serverless = path.resolve('node_modules/serverless/bin/serverless.js');

function offlineEnv(port: number, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: database.url,
    PORT: String(port),
    SLS_TELEMETRY_DISABLED: '1',
    LOG_LEVEL: 'WARN',
    ...extra,
  };
  for (const key of ['DASHBOARD_AUTH_TOKEN', 'LAMBDA_PORT', 'HOST']) if (!(key in extra)) delete env[key];
  return env;
}

async function startOffline(port: number, extra: NodeJS.ProcessEnv = {}): Promise<Child> {
  const child = startChild(process.execPath, [serverless, 'offline', 'start'], { env: offlineEnv(port, extra) });
  running.push(child);
  await child.waitFor(/Server ready/, 60_000);
  return child;
}

describe('serverless offline', () => {
  it('runs two instances side by side (each Lambda port free-picked), each serving the same handlers', async () => {
    const [portA, portB] = [await freePort(), await freePort()];
    await Promise.all([
      startOffline(portA),
      startOffline(portB, { RUNTIME_CLI: fakeRuntimePath, RUNTIME_STATE_DIR: fixtureStateDir, DASHBOARD_AUTH_TOKEN: 'offline-token' }),
    ]);

    const health = await fetch(`http://127.0.0.1:${portA}/api/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', task_storage: 'database' });
    // the auth bundle carries its own rows, and knows the other areas' public paths all the same
    const self = (await (await fetch(`http://127.0.0.1:${portA}/api/auth/self`)).json()) as { publicRoutes: string[] };
    expect(self.publicRoutes).toEqual(['/api/health', '/api/auth/self']);
    const created = await fetch(`http://127.0.0.1:${portA}/api/projects`, {
      method: 'POST',
      body: JSON.stringify({ name: 'Offline' }),
      headers: { 'content-type': 'application/json' },
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const got = await fetch(`http://127.0.0.1:${portA}/api/projects/${id}`);
    expect(((await got.json()) as { name: string }).name).toBe('Offline');

    // instance B got the variables of its shell: the token, and the runtime CLI the proxies call
    expect((await fetch(`http://127.0.0.1:${portB}/api/projects/${id}`)).status).toBe(401);
    const auth = { authorization: 'Bearer offline-token' };
    const runtime = await fetch(`http://127.0.0.1:${portB}/api/runtime/health`, { headers: auth });
    expect(runtime.status).toBe(200);
    expect(await runtime.json()).toMatchObject({ source: 'runtime-cli', ok: true, defaultAgentId: 'main' });

    const ids = new Set<string | null>();
    for (let i = 0; i < 3; i++)
      ids.add((await fetch(`http://127.0.0.1:${portB}/api/projects`, { headers: auth })).headers.get('x-request-id'));
    expect(ids.size).toBe(3);
  }, 240_000);

  it('refuses a non-loopback HOST without a token, as the runner does', async () => {
    const child = startChild(process.execPath, [serverless, 'offline', 'start'], {
      env: offlineEnv(await freePort(), { HOST: '0.0.0.0' }),
    });
    running.push(child);
    const { code } = await child.exited;
    expect(code).not.toBe(0);
    expect(child.output()).toMatch(/HOST=0\.0\.0\.0 is not a loopback address and DASHBOARD_AUTH_TOKEN is not set/);
  }, 120_000);
});
