import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { actionKindNames } from '../../core/actions/catalog';
import { appliedMigrations, migrate } from '../../infra/db/migrate';
import { migrations } from '../../infra/db/migrations/index';
import { createEmptyDatabase } from '../support/template-database';
import { useTestApp } from '../support/use-app';

const app = useTestApp();

const insertReceipt = (kind: string) =>
  app.db.query(`INSERT INTO action_receipts (action_id, kind, target_id, params_hash, actor) VALUES ($1, $2, 't', 'h', 'a')`, [
    randomUUID(),
    kind,
  ]);

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
    expect(await migrate(app.db)).toEqual({ applied: [], repaired: [] });
  });

  it('run_state_json (migration 1030) writes every column of workflow_runs, as to_jsonb of the row names them', async () => {
    const { rows } = await app.db.query<{ missing: string[]; extra: string[] }>(
      `WITH r AS (INSERT INTO workflow_runs (id, workflow_type, status) VALUES (gen_random_uuid(), 'keys', 'queued') RETURNING *)
       SELECT ARRAY(SELECT jsonb_object_keys(to_jsonb(r)) EXCEPT SELECT jsonb_object_keys(run_state_json(r))) AS missing,
              ARRAY(SELECT jsonb_object_keys(run_state_json(r)) EXCEPT SELECT jsonb_object_keys(to_jsonb(r))) AS extra
         FROM r`,
    );
    expect(rows[0]).toEqual({ missing: [], extra: [] });
  });

  it('action_receipts.kind takes every kind of the catalog and refuses any other (check violation)', async () => {
    for (const kind of actionKindNames) await insertReceipt(kind);
    await expect(insertReceipt('task.delete')).rejects.toMatchObject({ code: 'validation_failed' });
    const { rows } = await app.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM action_receipts WHERE kind = 'task.delete'`);
    expect(rows[0]!.n).toBe(0);
  });
});

/** A database of its own with the migrations before `name` applied; `fn` runs `name` when it has arranged the data. */
async function beforeMigration(name: string, fn: (db: pg.Client, apply: () => Promise<void>) => Promise<void>): Promise<void> {
  const database = await createEmptyDatabase(inject('pgAdminUrl'), `m${name.slice(0, 4)}`);
  const db = new pg.Client({ connectionString: database.url });
  try {
    await db.connect();
    const at = migrations.findIndex((m) => m.name === name);
    expect(at).toBeGreaterThan(0);
    for (const m of migrations.slice(0, at)) await db.query(m.sql);
    await fn(db, async () => {
      await db.query(migrations[at]!.sql);
    });
  } finally {
    await db.end().catch(() => undefined);
    await database.drop();
  }
}

describe('migrations on a database that already holds data', () => {
  it('gives every claim held when it runs a lease of 1800 s from that moment, and unclaimed tasks none', async () => {
    await beforeMigration('0800_agent_safety', async (db, apply) => {
      const { rows: p } = await db.query<{ id: string }>(`INSERT INTO projects (id, name) VALUES (gen_random_uuid(), 'p') RETURNING id`);
      await db.query(
        `INSERT INTO tasks (id, project_id, title, locked_by, locked_at) VALUES (gen_random_uuid(), $1, 'held', 'agent-a', now() - interval '3 hours'), (gen_random_uuid(), $1, 'free', NULL, NULL)`,
        [p[0]!.id],
      );
      await apply();
      const { rows } = await db.query<{ title: string; lease_left: number | null }>(
        `SELECT title, extract(epoch FROM lease_expires_at - now())::float AS lease_left FROM tasks ORDER BY title`,
      );
      expect(rows[0]).toMatchObject({ title: 'free', lease_left: null });
      expect(rows[1]!.title).toBe('held');
      expect(rows[1]!.lease_left).toBeGreaterThan(1700);
      expect(rows[1]!.lease_left).toBeLessThanOrEqual(1800);
    });
  });

  it('indexes every audit row it finds for search, with the text the dropped column held, and queues none', async () => {
    await beforeMigration('1020_audit_search_deferred', async (db, apply) => {
      await db.query(
        `INSERT INTO audit_log (actor, action, entity_type, old_value, new_value)
         VALUES ('Op', 'moved', 'task', '{"status":"Ready"}', '{"status":"Done"}'), ('bot', 'created', 'project', NULL, '{"name":"Zeta"}')`,
      );
      const { rows: before } = await db.query<{ id: string; search_text: string }>('SELECT id, search_text FROM audit_log ORDER BY id');
      await apply();
      const { rows: after } = await db.query<{ id: string; search_text: string }>(
        'SELECT audit_id AS id, search_text FROM audit_search ORDER BY audit_id',
      );
      expect(after).toEqual(before);
      expect(after[0]!.search_text).toBe('op moved task {"status": "ready"} {"status": "done"}');
      expect((await db.query('SELECT 1 FROM audit_search_pending')).rows).toEqual([]);
    });
  });
});
