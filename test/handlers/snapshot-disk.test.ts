import { randomUUID } from 'node:crypto';
import { readdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAppContext } from '../../infra/app-context';
import { snapshotStoreFor } from '../../infra/snapshots/snapshot-store';
import { useTestApp } from '../support/use-app';

/* Leftovers of a crashed snapshot write, and a snapshot folder that cannot be written. */

const app = useTestApp();

describe('snapshot folder', () => {
  it('a server starting removes the work files a killed snapshot write left behind, keeping artifacts', async () => {
    const created = await app.call('POST', '/api/snapshots', { body: { name: 'kept' } });
    expect(created.status).toBe(201);
    const dir = app.ctx.config.snapshotDir;
    const crashed = [`.${randomUUID()}.body.tmp`, `.${randomUUID()}.tmp`];
    const longAgo = new Date(Date.now() - 3_600_000);
    for (const name of crashed) {
      await writeFile(path.join(dir, name), '{"partial":');
      await utimes(path.join(dir, name), longAgo, longAgo);
    }
    const restarted = await createAppContext(app.ctx.config);
    await restarted.close();
    expect(await readdir(dir)).toEqual([`${created.body.snapshot_id}.json`]);
  });

  it('a folder that cannot be written answers snapshot_write_failed with a reason and no path, and writes nothing', async () => {
    const saved = app.ctx.deps.snapshots;
    const blocker = path.join(app.dataDir, 'not-a-folder');
    await writeFile(blocker, 'x');
    // the store is chosen once per process: this one's SNAPSHOT_DIR sits under a file
    app.ctx.deps.snapshots = snapshotStoreFor({ ...app.ctx.config, snapshotDir: path.join(blocker, 'snapshots') });
    try {
      const before = await app.db.query(`SELECT count(*)::int AS n FROM audit_log WHERE entity_type = 'snapshot'`);
      const res = await app.http('POST', '/api/snapshots', { body: { name: 'nowhere' } });
      expect(res.status, res.text).toBe(507);
      expect(res.body).toMatchObject({ error: 'snapshot_write_failed', code: 'snapshot_write_failed', reason: 'io_error' });
      expect(res.body.message).toMatch(/nothing was written/);
      expect(res.text).not.toContain(app.dataDir);
      const after = await app.db.query(`SELECT count(*)::int AS n FROM audit_log WHERE entity_type = 'snapshot'`);
      expect(after.rows).toEqual(before.rows);
    } finally {
      app.ctx.deps.snapshots = saved;
    }
  });
});
