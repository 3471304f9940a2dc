import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChild, type Child } from '../support/child-process';
import { useTestApp } from '../support/use-app';
import { startStreamRunner, watch, type StreamRunner } from './stream-support';

/**
 * The done criterion of the streams issue: a change made through another process (a second
 * task server on the same database, started from infra/http/main.ts) reaches an EventSource
 * connected to this process's runner. How fast it arrives is measured in bench/stream-fanout.ts
 * (delivery latency p50/p99), not asserted here: a shared test machine makes any time bound flaky.
 */
const app = useTestApp();
let server: StreamRunner;
let other: Child;
let otherUrl: string;
let otherDataDir: string;

beforeAll(async () => {
  server = await startStreamRunner(app);
  otherDataDir = await mkdtemp(path.join(os.tmpdir(), 'task-server-other-'));
  const env = { ...process.env };
  for (const key of ['DASHBOARD_AUTH_TOKEN', 'HOST', 'VITEST', 'VITEST_POOL_ID', 'VITEST_WORKER_ID', 'NODE_ENV']) delete env[key];
  other = startChild(process.execPath, ['--import', 'tsx', 'infra/http/main.ts'], {
    env: {
      ...env,
      DATABASE_URL: app.databaseUrl,
      DATA_DIR: otherDataDir,
      PORT: '0',
      LOG_LEVEL: 'WARN',
      DISPATCHER_INTERVAL_MS: '0',
      CRON_MANAGER_PORT: '0',
    },
  });
  otherUrl = (await other.waitFor(/task server ready at (http:\/\/\S+)/, 60_000))[1]!;
}, 90_000);

afterAll(async () => {
  if (other && other.proc.exitCode === null) {
    other.proc.kill('SIGTERM');
    await other.exited;
  }
  await server?.close();
  if (otherDataDir) await rm(otherDataDir, { recursive: true, force: true });
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function send(method: string, target: string, body?: unknown): Promise<any> {
  const res = await fetch(`${otherUrl}${target}`, { method, body: body === undefined ? undefined : JSON.stringify(body) });
  expect(res.status, `${method} ${target}`).toBeLessThan(300);
  return res.json();
}

/**
 * The update event of one entity: a stream starts where its server's delivery stands, so an
 * earlier test's event may still be on its way to it.
 */
const updateOf = (key: 'taskId' | 'projectId', id: string) => (e: { data: unknown }) => {
  const data = e.data as Record<string, unknown>;
  return data.action === 'updated' && data[key] === id;
};

describe('events published by another process', () => {
  it('task:changed from a PATCH through another server process reaches an EventSource here', async () => {
    const project = await send('POST', '/api/projects', { name: 'Cross-process' });
    const task = await send('POST', '/api/tasks', { project_id: project.id, title: 'Watched task' });
    const stream = watch(`${server.url}/api/events`, ['task:changed']);
    try {
      await stream.opened;
      await send('PATCH', `/api/tasks/${task.id}`, { title: 'Renamed elsewhere' });
      const event = await stream.waitFor(updateOf('taskId', task.id), 5_000);
      expect(event.data).toEqual({ action: 'updated', taskId: task.id });
    } finally {
      stream.close();
    }
  });

  it('project:changed from a PATCH through another server process reaches /api/events/stream here', async () => {
    const project = await send('POST', '/api/projects', { name: 'Cross-process project' });
    const stream = watch(`${server.url}/api/events/stream`, ['project:changed']);
    try {
      await stream.opened;
      await send('PATCH', `/api/projects/${project.id}`, { description: 'changed elsewhere' });
      const event = await stream.waitFor(updateOf('projectId', project.id), 5_000);
      expect(event.data).toEqual({ action: 'updated', projectId: project.id });
    } finally {
      stream.close();
    }
  });

  it('the other process serves streams too, and ends them cleanly on SIGTERM, exiting 0', async () => {
    const stream = watch(`${otherUrl}/api/events`, ['project:changed']);
    await stream.opened;
    const project = await send('POST', '/api/projects', { name: 'Seen over there' });
    await app.http('PATCH', `/api/projects/${project.id}`, { body: { name: 'Changed here' } });
    const event = await stream.waitFor(updateOf('projectId', project.id));
    expect(event.data).toEqual({ action: 'updated', projectId: project.id });
    stream.close();

    const open = watch(`${otherUrl}/api/events/stream`, []);
    await open.opened;
    other.proc.kill('SIGTERM');
    expect((await other.exited).code).toBe(0);
    open.close();
  });
});
