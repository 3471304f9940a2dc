import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { releasedRuntimeEnv, useFakeRuntimeCallLog } from '../fixtures/runtime/fake-runtime-env';
import { useFakeRuntimeApp } from '../support/use-app';

/*
 * The server against the runtime as released (OpenClaw 2026.9.6): the fake replays what the real
 * CLI printed (test/fixtures/runtime/openclaw-2026.9.6/), with its refusals.
 */
const app = useFakeRuntimeApp(releasedRuntimeEnv());

const { calls } = useFakeRuntimeCallLog(app, 'released-runtime-calls');

/** Runs `work` with the fake printing derived files in place of captured ones (fixture README). */
async function replayingAs(replacements: string, work: () => Promise<void>): Promise<void> {
  process.env.FAKE_RUNTIME_REPLAY_AS = replacements;
  try {
    await work();
  } finally {
    delete process.env.FAKE_RUNTIME_REPLAY_AS;
  }
}

const ECHO_JOB = '793fc1d1-73a5-42ba-9240-d51b67dbffbc';
const DISABLED_AGENT_JOB = '1baa6833-1fd4-4da3-86aa-e438616c5c37';

describe('the released runtime: health', () => {
  it('GET /api/runtime/health reads the gateway health and asks the runtime to wait at most 5 s for its gateway', async () => {
    const res = await app.http('GET', '/api/runtime/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      ok: true,
      heartbeatSeconds: 1800,
      defaultAgentId: 'main',
      agents: [expect.objectContaining({ agentId: 'main' })],
    });
    expect(await calls()).toEqual([['health', '--json', '--timeout', '5000']]);
  });
});

describe('the released runtime: agents and memory', () => {
  it('GET /api/runtime/agents lists the agents of a top-level array', async () => {
    const res = await app.http('GET', '/api/runtime/agents');
    expect(res.status).toBe(200);
    expect(res.body.agents).toEqual([expect.objectContaining({ id: 'main', isDefault: true })]);
  });

  it('POST /api/runtime/memory/index falls back to the text the runtime prints when it refuses --json, and is audited', async () => {
    const res = await app.http('POST', '/api/runtime/memory/index?agent=main');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      source: 'runtime-cli',
      success: true,
      agentId: 'main',
      result: {
        output: 'No memory files found in /home/operator/.openclaw/workspace; nothing indexed (main).',
        warnings: [expect.stringContaining('Vector recall degraded')],
      },
    });
    const memoryCalls = (await calls()).filter((c) => c[0] === 'memory');
    expect(memoryCalls).toEqual([
      ['memory', 'index', '--agent', 'main', '--json'],
      ['memory', 'index', '--agent', 'main'],
    ]);
    const { rows } = await app.db.query(`SELECT entity_id FROM audit_log WHERE action = 'runtime.memory_index'`);
    expect(rows).toEqual([{ entity_id: 'main' }]);
  });

  it('memory promote reads candidates, and the applied ones from apply.appliedCandidates', async () => {
    const dry = await app.http('GET', '/api/runtime/memory/promote?agent=main&limit=3');
    expect(dry.status).toBe(200);
    expect(dry.body.candidates).toEqual([]);
    const applied = await app.http('POST', '/api/runtime/memory/promote', { body: { agent: 'main', limit: 3 } });
    expect(applied.status).toBe(200);
    expect(applied.body).toEqual({ source: 'runtime-cli', success: true, agentId: 'main', promoted: [] });
    await replayingAs('mem_promote_apply=mem_promote_apply_two', async () => {
      const two = await app.http('POST', '/api/runtime/memory/promote', { body: { agent: 'main', limit: 3 } });
      expect(two.status).toBe(200);
      expect(two.body.promoted.map((c: { key: string }) => c.key)).toEqual(['memory:recall:deploy-window', 'memory:recall:oncall']);
    });
    const { rows } = await app.db.query(
      `SELECT new_value->>'promotedCount' AS n FROM audit_log WHERE action = 'runtime.memory_promote' ORDER BY id`,
    );
    expect(rows).toEqual([{ n: '0' }, { n: '2' }]);
  });

  it('an agent the released runtime does not list is still a 404', async () => {
    expect((await app.http('POST', '/api/runtime/memory/index?agent=writer')).status).toBe(404);
  });
});

describe('the released runtime: tasks', () => {
  it('GET /api/runtime/tasks?status=bogus is a 400 naming the allowed values, and the runtime is never called', async () => {
    for (const query of ['status=bogus', 'runtime=bogus', 'status=done']) {
      const res = await app.http('GET', `/api/runtime/tasks?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error, query).toMatch(/must be one of/);
    }
    expect(await calls()).toEqual([]);
    const ok = await app.http('GET', '/api/runtime/tasks?status=timed_out&runtime=acp');
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ source: 'runtime-cli', count: 0, tasks: [] });
    expect(await calls()).toEqual([['tasks', 'list', '--json', '--runtime', 'acp', '--status', 'timed_out']]);
  });

  it('GET /api/runtime/tasks/audit reads {findings, summary}: stale_* findings are stale, the others broken', async () => {
    const empty = await app.http('GET', '/api/runtime/tasks/audit');
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ stale: [], broken: [], findings: [], summary: expect.objectContaining({ total: 0 }) });

    await replayingAs('tasks_audit=tasks_audit_findings', async () => {
      const res = await app.http('GET', '/api/runtime/tasks/audit');
      expect(res.status).toBe(200);
      expect(res.body.stale).toEqual([expect.objectContaining({ code: 'stale_running', severity: 'warn' })]);
      expect(res.body.broken).toEqual([expect.objectContaining({ code: 'lost', severity: 'error' })]);
      expect(res.body.findings).toHaveLength(2);
      expect(res.body.summary).toMatchObject({ total: 2, errors: 1, warnings: 1 });
    });
  });
});

describe('the released runtime: scheduled jobs', () => {
  it('GET /api/cron/jobs lists the disabled job too (cron list --all), with its effective agent', async () => {
    const res = await app.http('GET', '/api/cron/jobs');
    expect(res.status).toBe(200);
    const byId = Object.fromEntries(res.body.jobs.map((j: { id: string }) => [j.id, j]));
    expect(Object.keys(byId)).toHaveLength(5);
    expect(byId[DISABLED_AGENT_JOB]).toMatchObject({
      name: 'agent-job',
      enabled: false,
      schedule: '*/30 * * * * (UTC)',
      model: 'openai/gpt-4o',
    });
    expect(byId[ECHO_JOB]).toMatchObject({
      name: 'echo-job',
      enabled: true,
      agentId: 'main',
      schedule: 'every 1h',
      nextRun: new Date(1795807802816).toISOString(),
    });
    expect((await calls())[0]).toEqual(['cron', 'list', '--json', '--all']);
  });

  it('a disabled job stays manageable: enable, disable and run answer, an unknown id is a 404', async () => {
    const enabled = await app.http('POST', `/api/cron/jobs/${DISABLED_AGENT_JOB}/enable`);
    expect(enabled.status).toBe(200);
    expect(enabled.body.data).toMatchObject({ id: DISABLED_AGENT_JOB, enabled: true });
    expect((await app.http('POST', `/api/cron/jobs/${DISABLED_AGENT_JOB}/disable`)).status).toBe(200);
    const run = await app.http('POST', `/api/cron/jobs/${DISABLED_AGENT_JOB}/run`);
    expect(run.status).toBe(202);
    expect(run.body.data).toMatchObject({ ok: true, enqueued: true });
    expect((await app.http('POST', '/api/cron/jobs/no-such-job/enable')).status).toBe(404);
  });

  it('GET /api/cron/jobs/:id/runs keeps the runtime run id, start (runAtMs), finish (ts), status and session key', async () => {
    const echo = await app.http('GET', `/api/cron/jobs/${ECHO_JOB}/runs?limit=5`);
    expect(echo.status).toBe(200);
    expect(echo.body.runs.map(({ _raw, ...rest }: { _raw: unknown }) => rest)).toEqual([
      {
        id: `manual:${ECHO_JOB}:1795804222049:1`,
        status: 'success',
        startedAt: '2026-11-27T18:30:22.088Z',
        finishedAt: '2026-11-27T18:30:22.223Z',
        sessionKey: null,
      },
    ]);
    const agentJob = await app.http('GET', `/api/cron/jobs/${DISABLED_AGENT_JOB}/runs?limit=3`);
    expect(agentJob.body.runs[0]).toMatchObject({
      id: `manual:${DISABLED_AGENT_JOB}:1795804259883:2`,
      status: 'failed',
      startedAt: '2026-11-27T18:30:59.907Z',
      finishedAt: '2026-11-27T18:31:09.780Z',
      sessionKey: `agent:main:cron:${DISABLED_AGENT_JOB}:run:e36fb042-4bf3-49e4-af20-d5e42b256f80`,
    });
  });

  it('a skipped run is reported as skipped, not as failed', async () => {
    await replayingAs('cron_runs=cron_runs_skipped', async () => {
      const res = await app.http('GET', `/api/cron/jobs/${ECHO_JOB}/runs`);
      expect(res.status).toBe(200);
      expect(res.body.runs.map((r: { status: string }) => r.status)).toEqual(['skipped', 'success']);
    });
  });

  it('GET /api/health-status counts every job of the runtime, disabled ones included', async () => {
    const res = await app.http('GET', '/api/health-status');
    expect(res.status).toBe(200);
    expect(res.body.checks.cron).toMatchObject({ count: 5, failing: 0 });
  });
});

describe('the released runtime: chat and session keys', () => {
  it('POST /api/agent/chat answers the text of result.payloads and stores it', async () => {
    const res = await app.http('POST', '/api/agent/chat', { body: { message: 'hello', sessionKey: 'agent:main:main' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, sessionKey: 'agent:main:main', reply: 'Hello from the mock model.' });
    const history = await app.http('GET', '/api/agent/chat/history?sessionKey=agent:main:main');
    expect(history.body.history.map((h: { content: string }) => h.content)).toEqual(['hello', 'Hello from the mock model.']);
  });

  it('a run whose session key has three segments (agent:writer:main) is bound to its agent', async () => {
    const projectId = randomUUID();
    const taskId = randomUUID();
    await app.db.query(`INSERT INTO projects (id, name) VALUES ($1, 'Released')`, [projectId]);
    await app.db.query(`INSERT INTO tasks (id, project_id, title) VALUES ($1, $2, 'three segments')`, [taskId, projectId]);
    await app.db.query(
      `INSERT INTO workflow_runs (id, workflow_type, status, task_id, gateway_session_id, gateway_session_active)
       VALUES ($1, 'content-pipeline', 'completed', $2, 'agent:writer:main', false)`,
      [randomUUID(), taskId],
    );
    const res = await app.http('GET', `/api/tasks/${taskId}/sessions`);
    expect(res.status).toBe(200);
    expect(res.body.sessions[0]).toMatchObject({ sessionKey: 'agent:writer:main', agentId: 'writer' });
  });
});
