import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChild } from '../support/child-process';
import { createTestDatabase } from '../support/test-app';

const run = promisify(execFile);
let database: { url: string; drop(): Promise<void> };
let dataDir: string;
let client: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'dispatcher-cli-'));
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
});
afterAll(async () => {
  await client?.end();
  await database?.drop();
  await rm(dataDir, { recursive: true, force: true });
});

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const e = { ...process.env };
  for (const key of ['DASHBOARD_AUTH_TOKEN', 'HOST', 'PORT', 'TEST_DATABASE_URL', 'VITEST']) delete e[key];
  return {
    ...e,
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'SILENT',
    CRON_MANAGER_PORT: '0',
    RUNTIME_CLI: '/nonexistent/runtime',
    ...extra,
  };
}

async function queuedRun(type: string, agent: string): Promise<string> {
  await client.query(`INSERT INTO workflow_templates (name, steps) VALUES ($1, '["a"]') ON CONFLICT DO NOTHING`, [type]);
  await client.query(`INSERT INTO workflow_agent_routing (workflow_type, agent_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [type, agent]);
  const { rows } = await client.query<{ id: string }>(
    `INSERT INTO workflow_runs (id, workflow_type) VALUES (gen_random_uuid(), $1) RETURNING id`,
    [type],
  );
  return rows[0]!.id;
}

async function statusOf(id: string): Promise<string> {
  return (await client.query<{ status: string }>('SELECT status FROM workflow_runs WHERE id = $1', [id])).rows[0]!.status;
}

describe('node dist/dispatcher.js --once', () => {
  it('runs one tick, prints its summary, and a missing runtime (failed wake) leaves the run dispatched', async () => {
    const id = await queuedRun('cli-flow', 'writer');
    const { stdout } = await run(process.execPath, ['dist/dispatcher.js', '--once'], { env: env(), timeout: 60_000 });
    const summary = JSON.parse(stdout.trim());
    expect(summary).toMatchObject({ source: 'cli', dispatched: 1, woken: 0, wakeFailed: 1 });
    expect(await statusOf(id)).toBe('dispatched');
  });

  it('refuses other arguments with a usage line and exit code 2', async () => {
    const failed = await run(process.execPath, ['dist/dispatcher.js'], { env: env(), timeout: 30_000 }).catch((e) => e);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toMatch(/usage: node dist\/dispatcher.js --once/);
  });
});

describe('two dispatcher processes ticking the same database at once', () => {
  it('dispatch each queued run once and recover each stale run once, with one audit row per run and action', async () => {
    const type = 'race-flow';
    await queuedRun(type, 'race-agent');
    await client.query(`INSERT INTO workflow_runs (id, workflow_type) SELECT gen_random_uuid(), $1 FROM generate_series(1, 599)`, [type]);
    // unclaimed for an hour after one dispatch: each is dispatched again by the recovery rule
    const { rows: stale } = await client.query<{ id: string }>(
      `INSERT INTO workflow_runs (id, workflow_type, status, target_agent_id, dispatched_at, dispatch_attempts)
       SELECT gen_random_uuid(), $1, 'dispatched', 'race-agent', now() - interval '1 hour', 1 FROM generate_series(1, 200) RETURNING id`,
      [type],
    );
    const ticks = await Promise.all(
      [1, 2].map(() =>
        run(process.execPath, ['dist/dispatcher.js', '--once'], { env: env(), timeout: 120_000 }).then(({ stdout }) =>
          JSON.parse(stdout.trim()),
        ),
      ),
    );
    expect(ticks.reduce((n, t) => n + t.dispatched, 0)).toBe(600);
    expect(ticks.reduce((n, t) => n + t.recovered.redispatched, 0)).toBe(200);

    const { rows: runs } = await client.query<{ status: string; dispatch_attempts: number; n: number }>(
      `SELECT status, dispatch_attempts, count(*)::int AS n FROM workflow_runs WHERE workflow_type = $1 GROUP BY 1, 2 ORDER BY 2`,
      [type],
    );
    expect(runs).toEqual([
      { status: 'dispatched', dispatch_attempts: 1, n: 600 },
      { status: 'dispatched', dispatch_attempts: 2, n: 200 },
    ]);
    const { rows: audits } = await client.query<{ action: string; runs: number; rows: number }>(
      `SELECT a.action, count(DISTINCT a.entity_id)::int AS runs, count(*)::int AS rows
         FROM audit_log a JOIN workflow_runs r ON r.id::text = a.entity_id
        WHERE a.entity_type = 'workflow_run' AND r.workflow_type = $1 GROUP BY a.action ORDER BY a.action`,
      [type],
    );
    expect(audits).toEqual([
      { action: 'dispatched', runs: 600, rows: 600 },
      { action: 'redispatched', runs: 200, rows: 200 },
    ]);
    expect(stale).toHaveLength(200);
  });
});

describe('budget reservations across dispatcher processes', () => {
  it('two ticks at once never dispatch more runs than the budget has room for: cap $1.00, $0.30 expected each, 20 queued', async () => {
    const type = 'reserved-flow';
    await client.query(`INSERT INTO workflow_templates (name, steps) VALUES ($1, '["a"]')`, [type]);
    await client.query(
      `INSERT INTO workflow_agent_routing (workflow_type, agent_id, expected_cost_usd) VALUES ($1, 'reserving-agent', 0.3)`,
      [type],
    );
    await client.query(
      `INSERT INTO budgets (id, name, scope, scope_id, period, cap_usd, action_on_exceed) VALUES (gen_random_uuid(), 'race cap', 'agent', 'reserving-agent', 'daily', 1.0, 'hard_stop')`,
    );
    await client.query(`INSERT INTO workflow_runs (id, workflow_type) SELECT gen_random_uuid(), $1 FROM generate_series(1, 20)`, [type]);
    const ticks = await Promise.all(
      [1, 2].map(() =>
        run(process.execPath, ['dist/dispatcher.js', '--once'], { env: env(), timeout: 120_000 }).then(({ stdout }) =>
          JSON.parse(stdout.trim()),
        ),
      ),
    );
    const { rows } = await client.query<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM workflow_runs WHERE workflow_type = $1 GROUP BY status ORDER BY status`,
      [type],
    );
    expect(rows).toEqual([
      { status: 'dispatched', n: 3 },
      { status: 'queued', n: 17 },
    ]);
    expect(ticks.reduce((n, t) => n + t.dispatched, 0)).toBe(3);
  });
});

describe('the runner timer and the bridge CLI', () => {
  it('dispatches on its own every DISPATCHER_INTERVAL_MS, the bridge CLI reports workflow_ready, and SIGTERM exits 0', async () => {
    const id = await queuedRun('timer-flow', 'timer-agent');
    const server = startChild(process.execPath, ['dist/server.js'], {
      env: env({ PORT: '0', DISPATCHER_INTERVAL_MS: '200', LOG_LEVEL: 'WARN' }),
    });
    try {
      const url = (await server.waitFor(/task server ready at (http:\/\/\S+)/, 60_000))[1]!;
      for (let i = 0; i < 200 && (await statusOf(id)) !== 'dispatched'; i++) await new Promise((r) => setTimeout(r, 100));
      expect(await statusOf(id)).toBe('dispatched');
      const { stdout } = await run(process.execPath, ['dist/bridge.js', '--agent', 'timer-agent'], {
        env: env({ TASK_SERVER_URL: url }),
        timeout: 30_000,
      });
      expect(JSON.parse(stdout)).toMatchObject({
        state: 'workflow_ready',
        agent: 'timer-agent',
        ready_count: 1,
        pending_workflow_runs: [{ id }],
      });
      const down = await run(process.execPath, ['dist/bridge.js', '--agent', 'timer-agent'], {
        env: env({ TASK_SERVER_URL: 'http://127.0.0.1:9' }),
        timeout: 30_000,
      }).catch((e) => e);
      expect(down.code).toBe(1);
      expect(JSON.parse(down.stdout)).toMatchObject({ state: 'error', agent: 'timer-agent' });
      server.proc.kill('SIGTERM');
      expect((await server.exited).code).toBe(0);
    } finally {
      if (server.proc.exitCode === null) server.proc.kill('SIGKILL');
    }
  });
});
