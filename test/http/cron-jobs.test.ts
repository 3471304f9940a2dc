import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { setFakeMode } from '../fixtures/runtime/fake-runtime-env';
import { useFakeRuntimeApp } from '../support/use-app';

const app = useFakeRuntimeApp();

const jobDir = () => path.join(app.dataDir, 'cron-jobs');

describe('GET /api/cron/jobs', () => {
  it('normalizes the scheduler records per spec 01 and keeps each record untouched under _raw', async () => {
    const res = await app.http('GET', '/api/cron/jobs');
    expect(res.status).toBe(200);
    const byId = Object.fromEntries(res.body.jobs.map((j: { id: string }) => [j.id, j]));
    expect(byId['daily-digest']).toEqual({
      id: 'daily-digest',
      name: 'Daily digest',
      description: 'Morning summary',
      schedule: '0 7 * * * (Europe/Paris)',
      enabled: true,
      status: 'success',
      lastRun: '2026-11-01T11:00:00.000Z',
      nextRun: '2026-11-02T11:00:00.000Z',
      agentId: 'main',
      model: 'gpt-large',
      legacy: false,
      _raw: expect.objectContaining({ id: 'daily-digest', schedule: { kind: 'cron', expr: '0 7 * * *', tz: 'Europe/Paris' } }),
    });
    expect(byId['inbox-poll']).toMatchObject({
      schedule: 'every 5m',
      enabled: false,
      status: 'failed',
      nextRun: null,
      agentId: null,
      model: null,
      description: '',
    });
    expect(byId['launch-reminder']).toMatchObject({ schedule: 'at 2026-11-02T12:00:00.000Z', status: 'unknown', lastRun: null });
    expect(res.body.runtime).toEqual({ ok: true });
  });

  it('still lists the legacy jobs when the runtime fails, and says how it failed', async () => {
    await app.http('POST', '/api/cron/jobs', { body: { id: 'survivor', command: 'echo hi' } });
    setFakeMode('garbage', 'cron list');
    const res = await app.http('GET', '/api/cron/jobs');
    expect(res.status).toBe(200);
    expect(res.body.jobs.map((j: { id: string }) => j.id)).toEqual(['survivor']);
    expect(res.body.runtime).toMatchObject({ ok: false, failure: 'bad_output' });
    await app.http('DELETE', '/api/cron/jobs/survivor');
  });
});

describe('GET /api/cron/jobs/:id/runs', () => {
  it('normalizes run entries to {id, status, startedAt} (no finish or session in the contract) and honours limit', async () => {
    const res = await app.http('GET', '/api/cron/jobs/daily-digest/runs?limit=2');
    expect(res.status).toBe(200);
    expect(res.body.runs.map(({ _raw, ...rest }: { _raw: unknown }) => rest)).toEqual([
      { id: 'daily-digest-r3', status: 'running', startedAt: '2026-11-01T11:59:00.000Z', finishedAt: null, sessionKey: null },
      { id: 'daily-digest-r2', status: 'success', startedAt: '2026-11-01T11:00:00.000Z', finishedAt: null, sessionKey: null },
    ]);
    const all = await app.http('GET', '/api/cron/jobs/daily-digest/runs');
    expect(all.body.runs.at(-1)).toMatchObject({ status: 'failed' });
  });

  it('refuses bad limits and hostile ids with 400, and an unknown job with 404', async () => {
    for (const q of ['limit=0', 'limit=-3', 'limit=abc', 'limit=501']) {
      expect((await app.http('GET', `/api/cron/jobs/daily-digest/runs?${q}`)).status, q).toBe(400);
    }
    expect((await app.http('GET', '/api/cron/jobs/daily-digest/runs?since=1')).headers['x-ignored-params']).toBe('since');
    for (const id of ['a..b', '-rf', '%2E%2E%2Fetc', 'a.b', '%2Fetc%2Fpasswd']) {
      expect((await app.http('GET', `/api/cron/jobs/${id}/runs`)).status, id).toBe(400);
    }
    const unknown = await app.http('GET', '/api/cron/jobs/no-such-job/runs');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'not_found', error: 'no scheduled job no-such-job in the runtime' });
  });
});

describe('run now, enable, disable', () => {
  it('POST /run answers 202 {success, message, data} and is audited', async () => {
    const res = await app.http('POST', '/api/cron/jobs/daily-digest/run');
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      success: true,
      message: 'job daily-digest started',
      data: { ok: true, jobId: 'daily-digest', runId: 'daily-digest-r4' },
    });
    const { rows } = await app.db.query(
      `SELECT actor, entity_type FROM audit_log WHERE action = 'cron.run' AND entity_id = 'daily-digest'`,
    );
    expect(rows).toEqual([{ actor: 'dashboard-operator', entity_type: 'cron_job' }]);
  });

  it('POST /run answers 500 when the runtime call fails, for every failure mode, and audits nothing', async () => {
    for (const mode of ['exit', 'garbage', 'error-payload'] as const) {
      setFakeMode(mode, 'cron run');
      const res = await app.http('POST', '/api/cron/jobs/inbox-poll/run');
      expect(res.status, mode).toBe(500);
      expect(res.body).toMatchObject({ success: false, code: 'execution_failed' });
      expect(res.body.error).toMatch(/inbox-poll was not started/);
    }
    const { rowCount } = await app.db.query(`SELECT 1 FROM audit_log WHERE entity_id = 'inbox-poll' AND action = 'cron.run'`);
    expect(rowCount).toBe(0);
  });

  it('enable and disable answer {success, data} and leave audit rows; an unknown job is a 404, a runtime failure a 502', async () => {
    const on = await app.http('POST', '/api/cron/jobs/inbox-poll/enable');
    expect(on.status).toBe(200);
    expect(on.body).toEqual({ success: true, data: { ok: true, id: 'inbox-poll', enabled: true } });
    const off = await app.http('POST', '/api/cron/jobs/inbox-poll/disable');
    expect(off.body.data.enabled).toBe(false);
    const { rows } = await app.db.query(`SELECT action FROM audit_log WHERE entity_id = 'inbox-poll' ORDER BY id`);
    expect(rows.map((r) => (r as { action: string }).action)).toEqual(['cron.enabled', 'cron.disabled']);
    for (const verb of ['enable', 'disable', 'run']) {
      const unknown = await app.http('POST', `/api/cron/jobs/ghost/${verb}`);
      expect(unknown.status, verb).toBe(404);
      expect(unknown.body.code).toBe('not_found');
    }
    expect((await app.db.query(`SELECT 1 FROM audit_log WHERE entity_id = 'ghost'`)).rowCount).toBe(0);
    setFakeMode('exit', 'cron enable');
    const failed = await app.http('POST', '/api/cron/jobs/inbox-poll/enable');
    expect(failed.status).toBe(502);
    expect(failed.body.code).toBe('runtime_failed');
  });
});

describe('legacy job definition files', () => {
  it('POST writes one file under DATA_DIR with cron fields defaulting to *, listed as legacy', async () => {
    const res = await app.http('POST', '/api/cron/jobs', {
      body: { id: 'backup', hour: '3', minute: '15', command: 'pg_dump fleet', description: 'nightly' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ success: true, id: 'backup' });
    const files = await readdir(jobDir());
    expect(files).toEqual(['backup.json']);
    const stored = JSON.parse(await readFile(path.join(jobDir(), 'backup.json'), 'utf8'));
    expect(stored).toMatchObject({ id: 'backup', minute: '15', hour: '3', dom: '*', month: '*', dow: '*', command: 'pg_dump fleet' });
    const list = await app.http('GET', '/api/cron/jobs');
    expect(list.body.jobs.find((j: { id: string }) => j.id === 'backup')).toMatchObject({
      legacy: true,
      schedule: '15 3 * * *',
      description: 'nightly',
      enabled: true,
      status: 'unknown',
      command: 'pg_dump fleet',
    });
    const { rows } = await app.db.query(`SELECT action FROM audit_log WHERE entity_id = 'backup'`);
    expect(rows).toEqual([{ action: 'created' }]);
  });

  it('POST without id or command is a 400 naming the field; an existing id is a 409 and the file is unchanged', async () => {
    const noId = await app.http('POST', '/api/cron/jobs', { body: { command: 'x' } });
    expect(noId.status).toBe(400);
    expect(noId.body.error).toMatch(/id/);
    const noCommand = await app.http('POST', '/api/cron/jobs', { body: { id: 'lonely' } });
    expect(noCommand.status).toBe(400);
    expect(noCommand.body.error).toMatch(/command/);
    await app.http('POST', '/api/cron/jobs', { body: { id: 'twice', command: 'first' } });
    const again = await app.http('POST', '/api/cron/jobs', { body: { id: 'twice', command: 'second' } });
    expect(again.status).toBe(409);
    expect(JSON.parse(await readFile(path.join(jobDir(), 'twice.json'), 'utf8')).command).toBe('first');
  });

  it('an id can never name a path outside the job directory', async () => {
    for (const id of ['../escape', '..', '/etc/passwd', 'a/b', 'a\\b', '.hidden', '-flag', 'x'.repeat(101), 'name.json']) {
      const res = await app.http('POST', '/api/cron/jobs', { body: { id, command: 'x' } });
      expect(res.status, id).toBe(400);
    }
    expect(await readdir(app.dataDir)).not.toContain('escape.json');
    const del = await app.http('DELETE', '/api/cron/jobs/..%2F..%2Fetc');
    expect(del.status).toBe(400);
  });

  it('DELETE removes the file (audited) and answers 404 when there is none', async () => {
    await app.http('POST', '/api/cron/jobs', { body: { id: 'temp-job', command: 'true' } });
    const res = await app.http('DELETE', '/api/cron/jobs/temp-job');
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(await readdir(jobDir())).not.toContain('temp-job.json');
    const again = await app.http('DELETE', '/api/cron/jobs/temp-job');
    expect(again.status).toBe(404);
    const { rows } = await app.db.query(`SELECT action FROM audit_log WHERE entity_id = 'temp-job' ORDER BY id`);
    expect(rows.map((r) => (r as { action: string }).action)).toEqual(['created', 'deleted']);
  });

  it('POST and DELETE answer 500 {success: false} when the job file cannot be written or removed, auditing nothing', async () => {
    // the job directory's place taken by a plain file: every write and removal under it fails (ENOTDIR, EEXIST)
    const saved = path.join(app.dataDir, 'cron-jobs.saved');
    await rename(jobDir(), saved).catch(() => undefined);
    await writeFile(jobDir(), 'not a directory');
    try {
      const created = await app.http('POST', '/api/cron/jobs', { body: { id: 'unwritable-job', command: 'true' } });
      expect(created.status).toBe(500);
      expect(created.body).toMatchObject({ success: false, code: 'execution_failed' });
      expect(created.body.error).toContain('unwritable-job');
      const deleted = await app.call('DELETE', '/api/cron/jobs/unwritable-job');
      expect(deleted.status).toBe(500);
      expect(deleted.body).toMatchObject({ success: false, code: 'execution_failed' });
      const { rows } = await app.db.query(`SELECT 1 FROM audit_log WHERE entity_id = 'unwritable-job'`);
      expect(rows).toEqual([]);
    } finally {
      await rm(jobDir(), { force: true });
      await rename(saved, jobDir()).catch(() => undefined);
    }
  });

  it('a corrupt definition file is reported by name, not a failure of the whole list', async () => {
    await mkdir(jobDir(), { recursive: true });
    await writeFile(path.join(jobDir(), 'broken.json'), '{not json');
    const res = await app.http('GET', '/api/cron/jobs');
    expect(res.status).toBe(200);
    expect(res.body.unreadableLegacyFiles).toEqual(['broken.json']);
  });

  it('random bodies at POST /api/cron/jobs never produce a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.anything(), fc.record({ id: fc.string(), command: fc.string(), minute: fc.string() }, { requiredKeys: [] })),
        async (body) => {
          const res = await app.call('POST', '/api/cron/jobs', { raw: JSON.stringify(body) ?? '' });
          expect(res.status).toBeLessThan(500);
        },
      ),
      { numRuns: 40 },
    );
  });
});
