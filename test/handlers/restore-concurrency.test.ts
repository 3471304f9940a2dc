import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { applyRestore } from '../../core/restore/apply';
import { memorySource } from '../../core/snapshots/byte-sources';
import { useTestApp } from '../support/use-app';
import { seedEveryTable } from './snapshots-fixtures';

/* Concurrent duplicates of a running restore answer 409 restore_in_progress, never 500. */

const app = useTestApp();
let snapshotId: string;
beforeAll(async () => {
  await seedEveryTable(app.db, 30, 'conc');
  const created = await app.call('POST', '/api/snapshots', { body: { name: 'concurrency' } });
  expect(created.status).toBe(201);
  snapshotId = created.body.snapshot_id;
});

const failureRows = async (restoreId: string) =>
  (await app.db.query(`SELECT 1 FROM audit_log WHERE action = 'restore.failed' AND entity_id = $1`, [restoreId])).rows.length;

describe('a restore applied twice at once', () => {
  it('answers 409 restore_in_progress to duplicates while the first is running, writes no failure row, then the stored summary', async () => {
    const restoreId = randomUUID();
    const request = { snapshot_id: snapshotId, mode: 'replace', restoreId };
    let duplicates: Array<{ status: number; body: Record<string, unknown> }> = [];
    let checked = false;
    const first = applyRestore(app.ctx.deps, memorySource(Buffer.from(JSON.stringify(request))), app.ctx.config.restoreMaxBytes, {
      batchSize: 10,
      // while the first apply is inside a table's transaction, its duplicates arrive
      afterBatch: async ({ batch }) => {
        if (checked || batch !== 0) return;
        checked = true;
        duplicates = await Promise.all([1, 2, 3].map(() => app.call('POST', '/api/restore/apply', { body: request })));
      },
    });
    const summary = await first;
    expect(checked).toBe(true);
    expect(summary).toMatchObject({ restoreId, duplicate: false });
    for (const d of duplicates) {
      expect(d.status).toBe(409);
      expect(d.body).toMatchObject({ error: 'restore_in_progress', code: 'restore_in_progress', restoreId });
    }
    expect(await failureRows(restoreId)).toBe(0);
    const { rows } = await app.db.query<{ last_error: string | null }>('SELECT last_error FROM restore_checkpoints WHERE restore_id = $1', [
      restoreId,
    ]);
    expect(rows[0]!.last_error).toBeNull();
    const after = await app.call('POST', '/api/restore/apply', { body: request });
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ restoreId, duplicate: true, summary: summary.summary });
  });

  it('ten concurrent applies over HTTP: one runs, the others answer 409 or the stored summary, none 5xx', async () => {
    const restoreId = randomUUID();
    const request = { snapshot_id: snapshotId, mode: 'replace', restoreId };
    const replies = await Promise.all(Array.from({ length: 10 }, () => app.http('POST', '/api/restore/apply', { body: request })));
    for (const r of replies) {
      expect([200, 409], r.text).toContain(r.status);
      expect(r.body.restoreId).toBe(restoreId);
      if (r.status === 409) expect(r.body.error).toBe('restore_in_progress');
    }
    expect(replies.filter((r) => r.status === 200 && r.body.duplicate === false)).toHaveLength(1);
    expect(await failureRows(restoreId)).toBe(0);
    const applied = await app.db.query(`SELECT 1 FROM audit_log WHERE action = 'restore.applied' AND entity_id = $1`, [restoreId]);
    expect(applied.rows).toHaveLength(1);
  });
});
