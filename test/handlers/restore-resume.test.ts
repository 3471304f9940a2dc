import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { applyRestore } from '../../core/restore/apply';
import { memorySource } from '../../core/snapshots/byte-sources';
import { useTestApp } from '../support/use-app';
import { artifactTables, liveTables, seedEveryTable } from './snapshots-fixtures';

const app = useTestApp();
beforeAll(async () => {
  await seedEveryTable(app.db, 40, 'base');
});

describe('restore resume', () => {
  it('a restore killed in the middle of a table resumes with the same restoreId to the snapshot state, no row lost or duplicated', async () => {
    const created = await app.call('POST', '/api/snapshots', { body: { name: 'resume' } });
    const artifact = JSON.parse(await readFile(path.join(app.ctx.config.snapshotDir, `${created.body.snapshot_id}.json`), 'utf8'));
    // change the database: new rows everywhere, and most tasks gone
    await seedEveryTable(app.db, 15, 'later');
    await app.db.query(`DELETE FROM tasks WHERE title LIKE 't base %' AND title <> 't base 1'`);

    const restoreId = randomUUID();
    const body = memorySource(Buffer.from(JSON.stringify({ snapshot_id: created.body.snapshot_id, mode: 'replace', restoreId })));
    const killed = applyRestore(app.ctx.deps, body, app.ctx.config.restoreMaxBytes, {
      batchSize: 10,
      afterBatch: ({ step, batch }) => {
        if (step === 'tasks' && batch === 2) throw new Error('process killed (injected)');
      },
    });
    await expect(killed).rejects.toMatchObject({ code: 'restore_failed' });

    const { rows } = await app.db.query<{ completed_tables: string[]; last_error: string; completed_at: Date | null }>(
      'SELECT completed_tables, last_error, completed_at FROM restore_checkpoints WHERE restore_id = $1',
      [restoreId],
    );
    expect(rows[0]!.completed_at).toBeNull();
    expect(rows[0]!.last_error).toMatch(/tasks: process killed/);
    expect(rows[0]!.completed_tables).toContain('projects');
    expect(rows[0]!.completed_tables).not.toContain('tasks');
    // the crashed table's transaction rolled back whole: its first two batches (20 tasks) are not there
    const baseTasks = await app.db.query(`SELECT title FROM tasks WHERE title LIKE 't base %'`);
    expect(baseTasks.rows).toEqual([{ title: 't base 1' }]);
    expect(rows[0]!.completed_tables).toContain('delete:tasks');

    const resumed = await app.call('POST', '/api/restore/apply', {
      body: { snapshot_id: created.body.snapshot_id, mode: 'replace', restoreId },
    });
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ restoreId, duplicate: false, resumed: true, summary: { resumed: true, mode: 'replace' } });
    const live = await liveTables(app.db);
    live.audit_log = live.audit_log!.filter((r) => !JSON.parse(r).entity_type.startsWith('restore'));
    expect(live).toEqual(artifactTables(artifact));
    const progress = await app.db.query<{ table: string }>(
      `SELECT payload->>'table' AS table FROM event_outbox WHERE name = 'restore-progress' AND payload->>'restoreId' = $1`,
      [restoreId],
    );
    const tables = progress.rows.map((r) => r.table);
    expect(new Set(tables).size).toBe(tables.length); // one event per completed table, none repeated by the resume

    const replay = await app.call('POST', '/api/restore/apply', {
      body: { snapshot_id: created.body.snapshot_id, mode: 'replace', restoreId },
    });
    expect(replay.body).toMatchObject({ duplicate: true, summary: resumed.body.summary });
  });

  it('answers 500 restore_failed through the endpoint when a table fails, audits the failure, and resumes with the same restoreId', async () => {
    const created = await app.call('POST', '/api/snapshots', { body: { name: 'failing table' } });
    const artifact = JSON.parse(await readFile(path.join(app.ctx.config.snapshotDir, `${created.body.snapshot_id}.json`), 'utf8'));
    const ws = artifact.tables.workspaces[0];
    // the merge must write the workspace back, and a fault injected in the database refuses that write
    await app.db.query(`DELETE FROM workspaces WHERE id = $1`, [ws.id]);
    await app.db.query(
      `CREATE FUNCTION refuse_workspace_write() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected fault'; END $$`,
    );
    await app.db.query(
      `CREATE TRIGGER refuse_workspace_write BEFORE INSERT OR UPDATE ON workspaces FOR EACH ROW EXECUTE FUNCTION refuse_workspace_write()`,
    );
    const restoreId = randomUUID();
    try {
      const res = await app.call('POST', '/api/restore/apply', { body: { snapshot_id: created.body.snapshot_id, restoreId } });
      expect(res.status).toBe(500);
      expect(res.body).toMatchObject({ error: 'restore_failed', restoreId, failed_step: 'workspaces' });
      expect(res.body.completed_tables).toEqual(['workflows']);
      expect(JSON.stringify(res.body)).not.toContain('injected fault');
      const audit = await app.db.query(`SELECT action FROM audit_log WHERE entity_id = $1`, [restoreId]);
      expect(audit.rows).toEqual([{ action: 'restore.failed' }]);
    } finally {
      await app.db.query('DROP TRIGGER refuse_workspace_write ON workspaces');
      await app.db.query('DROP FUNCTION refuse_workspace_write()');
    }
    const resumed = await app.call('POST', '/api/restore/apply', { body: { snapshot_id: created.body.snapshot_id, restoreId } });
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ restoreId, duplicate: false, resumed: true });
    expect((await app.db.query('SELECT slug FROM workspaces WHERE id = $1', [ws.id])).rows).toEqual([{ slug: ws.slug }]);
  });
});
