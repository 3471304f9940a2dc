import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { actionKindNames } from '../../core/actions/catalog';
import { appliedMigrations, migrate } from '../../infra/db/migrate';
import { migrations } from '../../infra/db/migrations/index';
import { withDatabase } from '../support/template-database';
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

describe('migration 0800 on a database that already holds claims', () => {
  it('gives every claim held when it runs a lease of 1800 s from that moment, and unclaimed tasks none', async () => {
    const adminUrl = inject('pgAdminUrl');
    const name = `m0800_${process.pid}_${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const db = new pg.Client({ connectionString: withDatabase(adminUrl, name) });
    try {
      await db.connect();
      const at = migrations.findIndex((m) => m.name === '0800_agent_safety');
      expect(at).toBeGreaterThan(0);
      for (const m of migrations.slice(0, at)) await db.query(m.sql);
      const { rows: p } = await db.query<{ id: string }>(`INSERT INTO projects (id, name) VALUES (gen_random_uuid(), 'p') RETURNING id`);
      await db.query(`INSERT INTO tasks (id, project_id, title, locked_by, locked_at) VALUES (gen_random_uuid(), $1, 'held', 'agent-a', now() - interval '3 hours'), (gen_random_uuid(), $1, 'free', NULL, NULL)`, [p[0]!.id]);
      await db.query(migrations[at]!.sql);
      const { rows } = await db.query<{ title: string; lease_left: number | null }>(
        `SELECT title, extract(epoch FROM lease_expires_at - now())::float AS lease_left FROM tasks ORDER BY title`,
      );
      expect(rows[0]).toMatchObject({ title: 'free', lease_left: null });
      expect(rows[1]!.title).toBe('held');
      expect(rows[1]!.lease_left).toBeGreaterThan(1700);
      expect(rows[1]!.lease_left).toBeLessThanOrEqual(1800);
    } finally {
      await db.end().catch(() => undefined);
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  });
});
