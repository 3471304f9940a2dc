import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { requireDb } from '../../core/storage';
import { migrate } from '../../infra/db/migrate';
import { migrations } from '../../infra/db/migrations/index';
import { landedEdits } from '../../infra/db/migrations/landed-edits';
import { PgDb } from '../../infra/db/pg-db';
import { sequenceOutbox } from '../../infra/events/outbox-sequencer';
import { schemaText } from '../../scripts/db-schema';
import agentSafetyAt3a13dff from '../fixtures/earlier-migrations/0800_agent_safety.3a13dff';
import outboxSequencerAt2cfe0f1 from '../fixtures/earlier-migrations/0900_event_outbox_sequencer.2cfe0f1';
import claimFreeTaskAt1f013ce from '../fixtures/earlier-migrations/1000_claim_free_task.1f013ce';
import claimFreeTaskAt61989d8 from '../fixtures/earlier-migrations/1000_claim_free_task.61989d8';
import claimDispatchedRunAt61989d8 from '../fixtures/earlier-migrations/1010_claim_dispatched_run.61989d8';
import { createEmptyDatabase } from '../support/template-database';
import { startTestApp, type TestApp } from '../support/test-app';

/*
 * A database that an earlier build migrated, with the text a migration had before it changed
 * after landing (infra/db/migrations/landed-edits.ts), upgrades: the server starts on it, holds
 * exactly the schema today's migrations make, and its claims work.
 */

/** Today's schema, from a database migrated by today's texts, as infra/db/schema.sql writes a schema. */
let todaysShape: string;
beforeAll(async () => {
  const today = await earlierBuildDatabase(migrations[migrations.length - 1]!.name, {});
  try {
    const db = new PgDb(today.url, { max: 1 });
    await migrate(db);
    todaysShape = await schemaText(db);
    await db.close();
  } finally {
    await today.drop();
  }
});

/**
 * A database of its own migrated as a build whose last migration was `through` left it, with
 * `earlier` texts in place of today's; `arrange` writes data into it before the upgrade.
 */
async function earlierBuildDatabase(
  through: string,
  earlier: Record<string, string>,
  arrange?: (db: pg.Client) => Promise<void>,
): Promise<{ url: string; drop(): Promise<void> }> {
  const database = await createEmptyDatabase(inject('pgAdminUrl'), 'edit');
  const { url, drop } = database;
  const db = new pg.Client({ connectionString: url });
  try {
    await db.connect();
    await db.query('CREATE TABLE schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const last = migrations.findIndex((m) => m.name === through);
    expect(last).toBeGreaterThanOrEqual(0);
    for (const m of migrations.slice(0, last + 1)) {
      await db.query(earlier[m.name] ?? m.sql);
      await db.query('INSERT INTO schema_migrations (name) VALUES ($1)', [m.name]);
    }
    await arrange?.(db);
  } catch (err) {
    await drop();
    throw err;
  } finally {
    await db.end();
  }
  return database;
}

/** The server started on `url`: it migrates the database as it starts. */
async function upgradeWithServer<T>(url: string, use: (app: TestApp) => Promise<T>): Promise<T> {
  const app = await startTestApp({ env: { DATABASE_URL: url } });
  try {
    expect(app.ctx.deps.storage.mode).toBe('database');
    return await use(app);
  } finally {
    await app.close();
  }
}

async function shapeOf(url: string): Promise<string> {
  const db = new PgDb(url, { max: 1 });
  try {
    return await schemaText(db);
  } finally {
    await db.close();
  }
}

async function createTask(app: TestApp): Promise<string> {
  const project = await app.call('POST', '/api/projects', { body: { name: `p-${randomUUID().slice(0, 6)}` } });
  const task = await app.call('POST', '/api/tasks', { body: { project_id: project.body.id, title: 'after the upgrade' } });
  expect(task.status).toBe(201);
  return task.body.id as string;
}

describe('a database migrated by an earlier text of a landed migration', () => {
  it('0800 as 3a13dff wrote it (the fencing token in tasks.lock_token): the column becomes lock_generation, its values kept', async () => {
    const held = randomUUID();
    const database = await earlierBuildDatabase('0800_agent_safety', { '0800_agent_safety': agentSafetyAt3a13dff }, async (db) => {
      const { rows } = await db.query<{ id: string }>(`INSERT INTO projects (id, name) VALUES (gen_random_uuid(), 'before') RETURNING id`);
      await db.query(
        `INSERT INTO tasks (id, project_id, title, locked_by, locked_at, lock_token) VALUES ($1, $2, 'claimed thrice', 'agent-a', now(), 3)`,
        [held, rows[0]!.id],
      );
    });
    try {
      await upgradeWithServer(database.url, async (app) => {
        const before = await app.call('GET', `/api/tasks/${held}`);
        expect(before.body).toMatchObject({ locked_by: 'agent-a', lock_token: 3 });
        const task = await createTask(app);
        const claimed = await app.call('POST', '/api/agent/claim', { body: { task_id: task, agent_name: 'upgraded' } });
        expect(claimed.status).toBe(200);
        expect(claimed.body).toMatchObject({ locked_by: 'upgraded', lock_token: 1 });
      });
      expect(await shapeOf(database.url)).toEqual(todaysShape);
    } finally {
      await database.drop();
    }
  });

  it("0900 as 2cfe0f1 wrote it (a full position index, a btree on created_at): the indexes become today's, and events still get positions", async () => {
    const database = await earlierBuildDatabase('0900_event_outbox_sequencer', { '0900_event_outbox_sequencer': outboxSequencerAt2cfe0f1 });
    try {
      await upgradeWithServer(database.url, async (app) => {
        await createTask(app);
        const db = requireDb(app.ctx.deps.storage);
        await sequenceOutbox(db);
        const { rows } = await db.query<{ waiting: number; numbered: number }>(
          'SELECT count(*) FILTER (WHERE position IS NULL)::int AS waiting, count(position)::int AS numbered FROM event_outbox',
        );
        expect(rows[0]!.waiting).toBe(0);
        expect(rows[0]!.numbered).toBeGreaterThan(0);
      });
      expect(await shapeOf(database.url)).toEqual(todaysShape);
    } finally {
      await database.drop();
    }
  });

  for (const [commit, earlier, through] of [
    ['1f013ce', { '1000_claim_free_task': claimFreeTaskAt1f013ce }, '1000_claim_free_task'],
    [
      '61989d8',
      { '1000_claim_free_task': claimFreeTaskAt61989d8, '1010_claim_dispatched_run': claimDispatchedRunAt61989d8 },
      '1010_claim_dispatched_run',
    ],
  ] as const) {
    it(`1000 as ${commit} wrote it (no js_iso; claim_free_task${commit === '1f013ce' ? ' with typed arguments' : ''}): later migrations apply, and a task claim works`, async () => {
      const database = await earlierBuildDatabase(through, earlier);
      try {
        // migrated here first, to read the report; the server then finds nothing to do
        const db = new PgDb(database.url, { max: 1 });
        try {
          const pending = migrations.slice(migrations.findIndex((m) => m.name === through) + 1).map((m) => m.name);
          expect(await migrate(db)).toEqual({ applied: pending, repaired: ['1000_claim_free_task'] });
        } finally {
          await db.close();
        }
        await upgradeWithServer(database.url, async (app) => {
          const task = await createTask(app);
          const claimed = await app.call('POST', '/api/agent/claim', { body: { task_id: task, agent_name: 'upgraded' } });
          expect(claimed.status).toBe(200);
          expect(claimed.body).toMatchObject({ locked_by: 'upgraded', lock_token: 1 });
          const { rows } = await requireDb(app.ctx.deps.storage).query<{ name: string }>('SELECT name FROM schema_migrations');
          expect(rows.map((r) => r.name).sort()).toEqual(migrations.map((m) => m.name).sort());
        });
        expect(await shapeOf(database.url)).toEqual(todaysShape);
      } finally {
        await database.drop();
      }
    });
  }
});

describe("a database migrated by today's texts", () => {
  it('needs none of the repairs, so starting a server on it changes nothing in its schema', async () => {
    const database = await earlierBuildDatabase(migrations[migrations.length - 1]!.name, {});
    try {
      const db = new PgDb(database.url, { max: 1 });
      try {
        for (const edit of landedEdits) {
          const { rows } = await db.query<{ needed: boolean }>(edit.needed);
          expect(rows[0]!.needed, edit.migration).toBe(false);
        }
        const { rows: before } = await db.query<{ oid: number }>(
          `SELECT oid FROM pg_proc WHERE proname IN ('claim_free_task', 'task_state_json', 'js_iso') ORDER BY oid`,
        );
        expect(await migrate(db)).toEqual({ applied: [], repaired: [] });
        const { rows: after } = await db.query<{ oid: number }>(
          `SELECT oid FROM pg_proc WHERE proname IN ('claim_free_task', 'task_state_json', 'js_iso') ORDER BY oid`,
        );
        expect(after).toEqual(before);
        expect(await schemaText(db)).toEqual(todaysShape);
      } finally {
        await db.close();
      }
    } finally {
      await database.drop();
    }
  });
});
