import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { releasedRuntimeEnv, setFakeMode, useFakeRuntimeCallLog } from '../fixtures/runtime/fake-runtime-env';
import { useFakeRuntimeApp } from '../support/use-app';

/*
 * POST /api/cron/jobs against the runtime as released (OpenClaw 2026.9.6): the fake replays what
 * its CLI printed for `cron add` (cron_add_cmd.out for a command job, cron_add_agent.out for an
 * agent turn), and lists those jobs afterwards (cl_all.out), as the real scheduler does.
 */
const app = useFakeRuntimeApp(releasedRuntimeEnv());

const ECHO_JOB = '793fc1d1-73a5-42ba-9240-d51b67dbffbc';
const AGENT_JOB = '1baa6833-1fd4-4da3-86aa-e438616c5c37';

const { calls } = useFakeRuntimeCallLog(app, 'cron-add-calls');
const adds = async () => (await calls()).filter((c) => c[0] === 'cron' && c[1] === 'add');
const legacyFiles = async () => readdir(path.join(app.dataDir, 'cron-jobs')).catch(() => [] as string[]);
async function auditOf(entityId: string) {
  const { rows } = await app.db.query<{ action: string; new_value: Record<string, unknown> }>(
    `SELECT action, new_value FROM audit_log WHERE entity_id = $1 ORDER BY id`,
    [entityId],
  );
  return rows;
}

describe("POST /api/cron/jobs through the released runtime's cron add", () => {
  it("adds a command job with its cron line, answers the runtime's job, writes no legacy file, and is audited", async () => {
    const res = await app.http('POST', '/api/cron/jobs', {
      body: { id: 'nightly-echo', minute: '15', hour: '3', command: 'echo hello-from-cron', description: 'echo test' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      success: true,
      id: ECHO_JOB,
      name: 'nightly-echo',
      legacy: false,
      job: { id: ECHO_JOB, name: 'echo-job', schedule: 'every 1h', enabled: true, legacy: false, nextRun: '2026-11-27T19:30:02.816Z' },
    });
    expect(await adds()).toEqual([
      [
        'cron',
        'add',
        '--name=nightly-echo',
        '--cron',
        '15 3 * * *',
        '--description=echo test',
        '--command=echo hello-from-cron',
        '--no-deliver',
        '--json',
      ],
    ]);
    expect(await legacyFiles()).not.toContain('nightly-echo.json');
    const audit = await auditOf(ECHO_JOB);
    expect(audit.map((a) => a.action)).toEqual(['created']);
    expect(audit[0]!.new_value).toMatchObject({
      id: ECHO_JOB,
      name: 'nightly-echo',
      cron: '15 3 * * *',
      command: 'echo hello-from-cron',
      legacy: false,
    });
  });

  it('adds an agent-turn job for an agent, disabled, in a time zone; it is then listed, enabled, disabled and run like the others', async () => {
    const res = await app.http('POST', '/api/cron/jobs', {
      body: { id: 'status-ping', minute: '*/30', message: 'status ping', agentId: 'main', tz: 'UTC', enabled: false },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      id: AGENT_JOB,
      legacy: false,
      job: { enabled: false, schedule: '*/30 * * * * (UTC)', model: 'openai/gpt-4o' },
    });
    expect(await adds()).toEqual([
      [
        'cron',
        'add',
        '--name=status-ping',
        '--cron',
        '*/30 * * * *',
        '--tz',
        'UTC',
        '--message=status ping',
        '--agent',
        'main',
        '--disabled',
        '--no-deliver',
        '--json',
      ],
    ]);

    const listed = await app.http('GET', '/api/cron/jobs');
    expect(listed.body.jobs.find((j: { id: string }) => j.id === AGENT_JOB)).toMatchObject({ enabled: false, legacy: false });
    expect((await app.http('POST', `/api/cron/jobs/${AGENT_JOB}/enable`)).status).toBe(200);
    expect((await app.http('POST', `/api/cron/jobs/${AGENT_JOB}/disable`)).status).toBe(200);
    const run = await app.http('POST', `/api/cron/jobs/${AGENT_JOB}/run`);
    expect(run.status, JSON.stringify(run.body)).toBe(202);
    expect(run.body).toMatchObject({ success: true, data: { ok: true, enqueued: true } });
    expect((await auditOf(AGENT_JOB)).map((a) => a.action)).toEqual(['created', 'cron.enabled', 'cron.disabled', 'cron.run']);
  });

  it('answers 409 for a name the runtime already lists, without adding', async () => {
    const res = await app.http('POST', '/api/cron/jobs', { body: { id: 'echo-job', command: 'echo again' } });
    expect(res.status).toBe(409);
    expect(res.body.error).toContain('echo-job');
    expect(await adds()).toEqual([]);
  });

  it("passes the runtime's refusal on as a 502, auditing nothing", async () => {
    setFakeMode('exit', 'cron add');
    const before = await app.db.query(`SELECT count(*)::int AS n FROM audit_log WHERE action = 'created' AND entity_type = 'cron_job'`);
    const res = await app.http('POST', '/api/cron/jobs', { body: { id: 'refused-job', command: 'true' } });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ failure: 'failed' });
    const after = await app.db.query(`SELECT count(*)::int AS n FROM audit_log WHERE action = 'created' AND entity_type = 'cron_job'`);
    expect(after.rows[0]).toEqual(before.rows[0]);
    expect(await legacyFiles()).not.toContain('refused-job.json');
  });

  it.each([
    [{ id: 'both', command: 'true', message: 'hi' }, 'message'],
    [{ id: 'neither' }, 'command'],
    [{ id: 'agent-of-a-command', command: 'true', agentId: 'main' }, 'agentId'],
    [{ id: 'bad-zone', command: 'true', tz: '../etc/passwd' }, 'tz'],
    [{ id: 'bad-enabled', command: 'true', enabled: 'yes' }, 'enabled'],
    [{ id: 'bad-agent', message: 'hi', agentId: '-rf' }, 'agentId'],
  ])('refuses %j with 400 naming %s, before any call', async (body, field) => {
    const res = await app.http('POST', '/api/cron/jobs', { body });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(JSON.stringify(res.body)).toContain(field);
    expect(await calls()).toEqual([]);
  });
});

describe("DELETE /api/cron/jobs/:id through the released runtime's cron rm", () => {
  const removals = async () => (await calls()).filter((c) => c[0] === 'cron' && c[1] === 'rm');

  it('removes a job the runtime lists (as cron add made it), answers legacy false, and audits it with the job it was', async () => {
    const res = await app.http('DELETE', `/api/cron/jobs/${ECHO_JOB}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ success: true, id: ECHO_JOB, legacy: false });
    expect(await removals()).toEqual([['cron', 'rm', ECHO_JOB, '--json']]);
    const { rows } = await app.db.query<{ old_value: Record<string, unknown> }>(
      `SELECT old_value FROM audit_log WHERE entity_id = $1 AND action = 'deleted'`,
      [ECHO_JOB],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.old_value).toMatchObject({ jobId: ECHO_JOB, legacy: false, job: { id: ECHO_JOB, name: 'echo-job' } });
  });

  it('answers 404 for an id neither a legacy file nor the runtime has, without calling cron rm', async () => {
    const res = await app.http('DELETE', '/api/cron/jobs/no-such-job');
    expect(res.status).toBe(404);
    expect(res.body.error).toContain('no-such-job');
    expect(await removals()).toEqual([]);
  });

  it('removes a legacy file of that id first, never calling cron rm', async () => {
    await asContractRuntime(async () => {
      expect((await app.http('POST', '/api/cron/jobs', { body: { id: 'legacy-then-gone', command: 'true' } })).status).toBe(201);
    });
    const res = await app.http('DELETE', '/api/cron/jobs/legacy-then-gone');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ success: true, id: 'legacy-then-gone' });
    expect(await legacyFiles()).not.toContain('legacy-then-gone.json');
    expect(await removals()).toEqual([]);
  });

  it("passes the runtime's refusal on as a 502, auditing nothing", async () => {
    setFakeMode('exit', 'cron rm');
    const res = await app.http('DELETE', `/api/cron/jobs/${AGENT_JOB}`);
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ failure: 'failed' });
    const { rows } = await app.db.query(`SELECT 1 FROM audit_log WHERE entity_id = $1 AND action = 'deleted'`, [AGENT_JOB]);
    expect(rows).toEqual([]);
  });
});

/** The fake answering as the contract's runtime (a `{jobs}` list without the released scheduler's paging). */
async function asContractRuntime(work: () => Promise<void>) {
  delete process.env.FAKE_RUNTIME_RELEASE;
  try {
    await work();
  } finally {
    process.env.FAKE_RUNTIME_RELEASE = 'openclaw-2026.9.6';
  }
}

describe("POST /api/cron/jobs with the contract's runtime", () => {
  it('writes a legacy definition file, never calling cron add', async () => {
    await asContractRuntime(async () => {
      const res = await app.http('POST', '/api/cron/jobs', { body: { id: 'contract-job', command: 'true' } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toEqual({ success: true, id: 'contract-job' });
      expect(await legacyFiles()).toContain('contract-job.json');
      expect(await adds()).toEqual([]);
    });
  });

  it('refuses with 400 what only the released scheduler runs (an agent turn, a time zone, a job created disabled)', async () => {
    await asContractRuntime(async () => {
      for (const [body, field] of [
        [{ id: 'contract-message', message: 'hi' }, 'message'],
        [{ id: 'contract-zone', command: 'true', tz: 'UTC' }, 'tz'],
        [{ id: 'contract-disabled', command: 'true', enabled: false }, 'enabled'],
      ] as const) {
        const res = await app.http('POST', '/api/cron/jobs', { body });
        expect(res.status, JSON.stringify(res.body)).toBe(400);
        expect(res.body.details[0].path).toBe(field);
      }
      expect(await adds()).toEqual([]);
    });
  });
});
