import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { actionKindNames } from '../../core/actions/catalog';
import { appliedMigrations, migrate } from '../../infra/db/migrate';
import { migrations } from '../../infra/db/migrations/index';
import { useTestApp } from '../support/use-app';

const app = useTestApp();

const insertReceipt = (kind: string) =>
  app.db.query(`INSERT INTO action_receipts (action_id, kind, target_id, params_hash, actor) VALUES ($1, $2, 't', 'h', 'a')`, [randomUUID(), kind]);

describe('migrations on a live database', () => {
  it('appliedMigrations answers the order they ran in (the array), not name order', async () => {
    const names = migrations.map((m) => m.name);
    expect(await appliedMigrations(app.db)).toEqual(names);
    expect(names).not.toEqual([...names].sort());
  });

  it('lists names a newer build applied after the known ones, by name', async () => {
    await app.db.query(`INSERT INTO schema_migrations (name) VALUES ('9999_from_a_newer_build'), ('9998_from_a_newer_build')`);
    try {
      expect((await appliedMigrations(app.db)).slice(-2)).toEqual(['9998_from_a_newer_build', '9999_from_a_newer_build']);
    } finally {
      await app.db.query(`DELETE FROM schema_migrations WHERE name LIKE '999%'`);
    }
  });

  it('migrating again applies nothing', async () => {
    expect(await migrate(app.db)).toEqual([]);
  });

  it('action_receipts.kind takes every kind of the catalog and refuses any other (check violation)', async () => {
    for (const kind of actionKindNames) await insertReceipt(kind);
    await expect(insertReceipt('task.delete')).rejects.toMatchObject({ code: 'validation_failed' });
    const { rows } = await app.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM action_receipts WHERE kind = 'task.delete'`);
    expect(rows[0]!.n).toBe(0);
  });
});
