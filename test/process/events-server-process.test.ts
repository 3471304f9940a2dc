import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watch } from '../http/stream-support';
import { startChild, type Child } from '../support/child-process';
import { useTestApp } from '../support/use-app';

/** The built server (node dist/server.js) streams changes made by this process on the same database. */
const app = useTestApp();
let server: Child;
let url: string;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'task-server-streams-'));
  const env = { ...process.env };
  for (const key of ['DASHBOARD_AUTH_TOKEN', 'HOST', 'VITEST', 'NODE_ENV']) delete env[key];
  server = startChild(process.execPath, ['dist/server.js'], {
    env: {
      ...env,
      DATABASE_URL: app.databaseUrl,
      DATA_DIR: dataDir,
      PORT: '0',
      LOG_LEVEL: 'WARN',
      DISPATCHER_INTERVAL_MS: '0',
      CRON_MANAGER_PORT: '0',
    },
  });
  url = (await server.waitFor(/task server ready at (http:\/\/\S+)/, 60_000))[1]!;
});

afterAll(async () => {
  if (server && server.proc.exitCode === null) {
    server.proc.kill('SIGKILL');
    await server.exited;
  }
  await rm(dataDir, { recursive: true, force: true });
});

describe('node dist/server.js streams', () => {
  it('delivers task:changed for a PATCH made by another process, then ends its streams on SIGTERM and exits 0', async () => {
    const project = await app.http('POST', '/api/projects', { body: { name: 'Built server' } });
    const task = await app.http('POST', '/api/tasks', { body: { project_id: project.body.id, title: 'Streamed by dist' } });
    expect(task.status).toBe(201);
    const stream = watch(`${url}/api/events`, ['task:changed']);
    await stream.opened;
    await app.http('PATCH', `/api/tasks/${task.body.id}`, { body: { title: 'Patched' } });
    const event = await stream.waitFor((e) => (e.data as { action: string }).action === 'updated', 5_000);
    expect(event.data).toEqual({ action: 'updated', taskId: task.body.id });

    const ended = new Promise<void>((resolve) => stream.source.addEventListener('error', () => resolve(), { once: true }));
    server.proc.kill('SIGTERM');
    await ended; // the stream ended (the library reports the end as an error before it tries to reconnect)
    stream.close();
    expect((await server.exited).code).toBe(0);
  });
});
