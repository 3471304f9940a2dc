import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { applyRestore } from '../../core/restore/apply';
import { memorySource } from '../../core/snapshots/byte-sources';
import { useTestApp } from '../support/use-app';
import { seedEveryTable } from './snapshots-fixtures';

/** GET /api/restore/:restoreId: what a client that lost the apply's answer learns of it (running, completed, failed, interrupted). */
const app = useTestApp();
let snapshotId: string;
let totalRows: number;
let tableCount: number;

beforeAll(async () => {
  await seedEveryTable(app.db, 12, 'base');
  const created = await app.call('POST', '/api/snapshots', { body: { name: 'status' } });
  snapshotId = created.body.snapshot_id;
  const counts = created.body.manifest.counts as Record<string, number>;
  totalRows = Object.values(counts).reduce((a, b) => a + b, 0);
  tableCount = Object.keys(counts).length;
});

const applyBody = (restoreId: string, mode = 'merge') =>
  memorySource(Buffer.from(JSON.stringify({ snapshot_id: snapshotId, mode, restoreId })));

describe('GET /api/restore/:restoreId', () => {
  it('says running with the rows done so far while an apply holds the restore, then completed with the apply’s summary', async () => {
    const restoreId = randomUUID();
    let resume!: () => void;
    const paused = new Promise<void>((resolve) => (resume = resolve));
    let reached!: () => void;
    const atTasks = new Promise<void>((resolve) => (reached = resolve));
    const applying = applyRestore(app.ctx.deps, applyBody(restoreId), app.ctx.config.restoreMaxBytes, {
      afterBatch: async ({ step }) => {
        if (step !== 'tasks') return;
        reached();
        await paused;
      },
    });
    await atTasks;
    const running = await app.call('GET', `/api/restore/${restoreId}`);
    expect(running.status).toBe(200);
    expect(running.body).toMatchObject({
      restoreId,
      snapshot_id: snapshotId,
      mode: 'merge',
      state: 'running',
      steps_total: tableCount,
      total_rows: totalRows,
      completed_at: null,
      summary: null,
      failed_step: null,
    });
    expect(running.body.completed_steps).toEqual(['workflows', 'workspaces', 'projects']);
    expect(running.body.done_rows).toBeGreaterThan(0);
    expect(running.body.done_rows).toBeLessThan(totalRows);
    resume();
    const applied = await applying;

    const done = await app.call('GET', `/api/restore/${restoreId}`);
    expect(done.body).toMatchObject({ state: 'completed', done_rows: totalRows, total_rows: totalRows, failed_step: null });
    expect(done.body.completed_steps).toHaveLength(tableCount);
    expect(done.body.summary).toEqual(JSON.parse(JSON.stringify(applied.summary)));
    expect(Date.parse(done.body.completed_at)).toBeGreaterThanOrEqual(Date.parse(done.body.started_at));
  });

  it('says failed, naming the step and not the error, after an apply that stopped; and counts both steps of each table in replace mode', async () => {
    const restoreId = randomUUID();
    const failing = applyRestore(app.ctx.deps, applyBody(restoreId, 'replace'), app.ctx.config.restoreMaxBytes, {
      afterBatch: ({ step }) => {
        if (step === 'projects') throw new Error('secret-ish driver detail (injected)');
      },
    });
    await expect(failing).rejects.toMatchObject({ code: 'restore_failed' });
    const status = await app.call('GET', `/api/restore/${restoreId}`);
    expect(status.body).toMatchObject({
      state: 'failed',
      failed_step: 'projects',
      mode: 'replace',
      steps_total: 2 * tableCount,
      completed_at: null,
    });
    expect(JSON.stringify(status.body)).not.toContain('driver detail');
    // the deletes ran (reverse order), then workflows and workspaces were upserted
    expect(status.body.completed_steps.filter((s: string) => !s.startsWith('delete:'))).toEqual(['workflows', 'workspaces']);
    expect(status.body.done_rows).toBeLessThan(totalRows);

    // the same restoreId resumes, and the status follows
    const resumed = await app.call('POST', '/api/restore/apply', { body: { snapshot_id: snapshotId, mode: 'replace', restoreId } });
    expect(resumed.status).toBe(200);
    expect((await app.call('GET', `/api/restore/${restoreId}`)).body).toMatchObject({ state: 'completed', done_rows: totalRows });
  });

  it('says interrupted when steps are missing and no request applies them (the applying process went away)', async () => {
    const restoreId = randomUUID();
    await app.db.query(
      `INSERT INTO restore_checkpoints (restore_id, snapshot_id, mode, completed_tables) VALUES ($1, $2, 'merge', '{workflows}')`,
      [restoreId, snapshotId],
    );
    const status = await app.call('GET', `/api/restore/${restoreId}`);
    expect(status.body).toMatchObject({ state: 'interrupted', completed_steps: ['workflows'], failed_step: null });
  });

  it('leaves progress unknown (null) when the snapshot is not stored', async () => {
    const restoreId = randomUUID();
    await app.db.query(`INSERT INTO restore_checkpoints (restore_id, snapshot_id, mode) VALUES ($1, $2, 'merge')`, [
      restoreId,
      randomUUID(),
    ]);
    const status = await app.call('GET', `/api/restore/${restoreId}`);
    expect(status.body).toMatchObject({ state: 'interrupted', steps_total: null, done_rows: null, total_rows: null });
  });

  it('answers 404 for a restore that never started and 400 for an id that is not a UUID', async () => {
    const missing = await app.call('GET', `/api/restore/${randomUUID()}`);
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatch(/no restore/);
    const bad = await app.call('GET', '/api/restore/not-a-uuid');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/restoreId/);
  });
});
