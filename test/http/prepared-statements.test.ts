import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireDb } from '../../core/storage';
import { PgDb } from '../../infra/db/pg-db';
import { createTestDatabase, type TestApp } from '../support/test-app';
import { useTestApp } from '../support/use-app';

/*
 * Repeated statements go to the server as named prepared statements (infra/db/pg-db.ts
 * StatementNames, DB_PREPARED_STATEMENTS). What must hold: the server really keeps them, answers do
 * not change, a table that changes shape under a prepared statement does not break it, and the
 * switch turns it off.
 */

describe('prepared statements through the Db port', () => {
  let database: { url: string; drop(): Promise<void> };
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database.drop();
  });

  const preparedOf = async (db: PgDb, text: string) =>
    (
      await db.transaction((tx) =>
        tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement = $1`, [text]),
      )
    ).rows[0]!.n;

  it('prepares a text on its second use with parameters, never a one-off, a catch-all or a text without parameters, and answers alike', async () => {
    // one connection, so the statements of the test and of the check share a session
    const db = new PgDb(database.url, { max: 1 });
    try {
      await db.query('CREATE TABLE prep_items (id int PRIMARY KEY, label text)');
      await db.query(`INSERT INTO prep_items SELECT g, 'item ' || g FROM generate_series(1, 5) g`);
      const read = 'SELECT id, label FROM prep_items WHERE id = $1';
      expect((await db.query(read, [2])).rows).toEqual([{ id: 2, label: 'item 2' }]);
      expect(await preparedOf(db, read)).toBe(0);
      expect((await db.query(read, [3])).rows).toEqual([{ id: 3, label: 'item 3' }]);
      expect(await preparedOf(db, read)).toBe(1);
      // inside a transaction the same name is used (parsed once per connection)
      const inTx = await db.transaction(async (tx) => (await tx.query(read, [4])).rows);
      expect(inTx).toEqual([{ id: 4, label: 'item 4' }]);
      expect(await preparedOf(db, read)).toBe(1);
      // a catch-all filter is planned with its values every time: never named
      const catchAll = 'SELECT id FROM prep_items WHERE ($1::int IS NULL OR id = $1) ORDER BY id';
      for (const value of [1, null, 2]) await db.query(catchAll, [value]);
      expect((await db.query(catchAll, [3])).rows).toEqual([{ id: 3 }]);
      expect(await preparedOf(db, catchAll)).toBe(0);
      const noParams = 'SELECT count(*)::int AS n FROM prep_items';
      await db.query(noParams);
      await db.query(noParams);
      expect(await preparedOf(db, noParams)).toBe(0);
    } finally {
      await db.close();
    }
  });

  it('a table that changes shape under a prepared statement still answers, with the new shape', async () => {
    const db = new PgDb(database.url, { max: 1 });
    try {
      await db.query('CREATE TABLE prep_shapes (id int PRIMARY KEY, a text)');
      await db.query(`INSERT INTO prep_shapes VALUES (1, 'one')`);
      const read = 'SELECT * FROM prep_shapes WHERE id = $1';
      await db.query(read, [1]);
      expect((await db.query(read, [1])).rows).toEqual([{ id: 1, a: 'one' }]);
      await db.query(`ALTER TABLE prep_shapes ADD COLUMN b text DEFAULT 'two'`);
      expect((await db.query(read, [1])).rows).toEqual([{ id: 1, a: 'one', b: 'two' }]);
      expect((await db.query(read, [1])).rows).toEqual([{ id: 1, a: 'one', b: 'two' }]);
    } finally {
      await db.close();
    }
  });

  it('prepareStatements: false sends every statement unnamed', async () => {
    const db = new PgDb(database.url, { max: 1, prepareStatements: false });
    try {
      const read = 'SELECT $1::int + 1 AS n';
      for (let i = 0; i < 3; i++) expect((await db.query(read, [i])).rows).toEqual([{ n: i + 1 }]);
      expect(await preparedOf(db, read)).toBe(0);
      await db.query('CREATE TABLE prep_unnamed_writes (label text)');
      const write = 'INSERT INTO prep_unnamed_writes (label) VALUES ($1)';
      for (let i = 0; i < 3; i++) await db.transaction((tx) => tx.writeAtCommit(write, [`w${i}`]));
      expect(await preparedOf(db, `PREPARE fw_0 AS ${write}`)).toBe(0);
      expect((await db.query('SELECT count(*)::int AS n FROM prep_unnamed_writes')).rows).toEqual([{ n: 3 }]);
    } finally {
      await db.close();
    }
  });

  it('any text written at commit, inline or as EXECUTE, reads back as it was written', async () => {
    const db = new PgDb(database.url, { max: 2 });
    try {
      await db.query('CREATE TABLE prep_texts (n int PRIMARY KEY, label text, doc jsonb)');
      const write = 'INSERT INTO prep_texts (n, label, doc) VALUES ($1, $2, $3::jsonb)';
      // PostgreSQL text holds no NUL character; everything else goes (quotes, backslashes, `$1`, any plane)
      const text = fc
        .string({
          unit: fc.oneof(
            fc.constantFrom("'", '\\', '$', '1', '"', 'E', ' ', '\n'),
            fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
          ),
          maxLength: 40,
        })
        .filter((s) => !s.includes('\u0000'));
      let n = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(text, { minLength: 1, maxLength: 4 }), async (labels) => {
          const first = n;
          await db.transaction(async (tx) => {
            for (const label of labels) await tx.writeAtCommit(write, [n++, label, JSON.stringify({ label })]);
          });
          const { rows } = await db.query<{ label: string; doc: { label: string } }>(
            'SELECT label, doc FROM prep_texts WHERE n >= $1 ORDER BY n',
            [first],
          );
          expect(rows.map((r) => r.label)).toEqual(labels);
          expect(rows.map((r) => r.doc.label)).toEqual(labels);
        }),
        { numRuns: 60 },
      );
      expect(
        (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'fw\\_%'`)).rows[0]!.n,
      ).toBeGreaterThan(0);
    } finally {
      await db.close();
    }
  });

  it('a commit whose prepared write has gone (a transaction-mode pooler) fails once, and the pool writes inline from then on', async () => {
    const db = new PgDb(database.url, { max: 1 });
    try {
      await db.query('CREATE TABLE prep_pooled (label text)');
      const write = 'INSERT INTO prep_pooled (label) VALUES ($1)';
      await db.transaction((tx) => tx.writeAtCommit(write, ['one']));
      await db.transaction((tx) => tx.writeAtCommit(write, ['two']));
      // what a pooler does: the next transaction's server connection never saw the PREPARE
      await db.query('DEALLOCATE fw_0');
      await expect(db.transaction((tx) => tx.writeAtCommit(write, ['lost']))).rejects.toMatchObject({ code: '26000' });
      for (const label of ['three', 'four']) await db.transaction((tx) => tx.writeAtCommit(write, [label]));
      expect((await db.query<{ label: string }>('SELECT label FROM prep_pooled')).rows.map((r) => r.label)).toEqual([
        'one',
        'two',
        'three',
        'four',
      ]);
      expect(await preparedOf(db, `PREPARE fw_0 AS ${write}`)).toBe(0);
    } finally {
      await db.close();
    }
  });

  it('a write at commit repeated is PREPAREd once per connection and sent as EXECUTE; values, rollbacks and failed commits come out as unprepared', async () => {
    const db = new PgDb(database.url, { max: 1 });
    try {
      await db.query('CREATE TABLE prep_writes (label text, n bigint, doc jsonb, at timestamptz, CHECK (n >= 0))');
      const write = 'INSERT INTO prep_writes (label, n, doc, at) VALUES ($1, $2, $3::jsonb, $4::timestamptz)';
      const labels = [`it's`, 'back\\slash', 'ünïcode ✓', '$1 $$ dollars', ''];
      for (const [i, label] of labels.entries()) {
        await db.transaction((tx) => tx.writeAtCommit(write, [label, i, JSON.stringify({ label, i }), '2026-01-02T03:04:05.678Z']));
      }
      await db.transaction((tx) => tx.writeAtCommit(write, [null, 7, null, null]));
      const prepared = await db.query<{ statement: string }>(`SELECT statement FROM pg_prepared_statements WHERE name LIKE 'fw\\_%'`);
      expect(prepared.rows).toEqual([{ statement: `PREPARE fw_0 AS ${write}` }]);

      // a savepoint that rolls back drops its write; a transaction that rolls back leaves nothing
      await db.transaction(async (tx) => {
        await tx
          .transaction(async (inner) => {
            await inner.writeAtCommit(write, ['dropped', 1, null, null]);
            throw new Error('undo');
          })
          .catch(() => undefined);
        await tx.writeAtCommit(write, ['kept', 8, null, null]);
      });
      await expect(
        db.transaction(async (tx) => {
          await tx.writeAtCommit(write, ['rolled back', 9, null, null]);
          throw new Error('give up');
        }),
      ).rejects.toThrow('give up');
      // a write that fails at commit fails the whole commit, and the connection goes on
      await expect(
        db.transaction(async (tx) => {
          await tx.writeAtCommit(write, ['fine', 10, null, null]);
          await tx.writeAtCommit(write, ['negative', -1, null, null]);
        }),
      ).rejects.toThrow(/prep_writes_n_check/);
      await db.transaction((tx) => tx.writeAtCommit(write, ['after', 11, null, null]));

      const { rows } = await db.query<{ label: string | null; n: number; doc: unknown; at: Date | null }>(
        'SELECT label, n, doc, at FROM prep_writes ORDER BY n',
      );
      expect(rows.map((r) => r.label)).toEqual([...labels, null, 'kept', 'after']);
      expect(rows[1]!.doc).toEqual({ label: labels[1], i: 1 });
      expect(rows[0]!.at?.toISOString()).toBe('2026-01-02T03:04:05.678Z');
      expect(rows[5]).toEqual({ label: null, n: 7, doc: null, at: null });
    } finally {
      await db.close();
    }
  });
});

/**
 * How many prepared statements whose text contains `fragment` each open connection of the
 * server's own pool holds: every connection is taken at once (a barrier holds each until all
 * have asked), so none is missed.
 */
async function preparedPerConnection(app: TestApp, fragment: string): Promise<number[]> {
  const db = requireDb(app.ctx.deps.storage) as PgDb;
  const open = db.pool.totalCount;
  let arrived = 0;
  let release!: () => void;
  const everyoneAsked = new Promise<void>((resolve) => (release = resolve));
  return Promise.all(
    Array.from({ length: open }, () =>
      db.transaction(async (tx) => {
        const { rows } = await tx.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_prepared_statements WHERE strpos(statement, $1) > 0`,
          [fragment],
        );
        if (++arrived === open) release();
        await everyoneAsked;
        return rows[0]!.n;
      }),
    ),
  );
}

const projectRead = 'FROM projects WHERE id = $1';

describe('DB_PREPARED_STATEMENTS=0', () => {
  const app = useTestApp({ env: { DB_PREPARED_STATEMENTS: '0' } }, { afterClose: () => delete process.env.DB_PREPARED_STATEMENTS });

  it('the server answers as usual and keeps no prepared statement', async () => {
    const created = await app.call('POST', '/api/projects', { body: { name: 'unprepared' } });
    expect(created.status).toBe(201);
    for (let i = 0; i < 3; i++) {
      const read = await app.call('GET', `/api/projects/${created.body.id}`);
      expect(read.status).toBe(200);
      expect(read.body.name).toBe('unprepared');
    }
    const counts = await preparedPerConnection(app, projectRead);
    expect(counts.length).toBeGreaterThan(0);
    expect(counts.every((n) => n === 0)).toBe(true);
    // nor are the audit rows written with each commit prepared
    for (let i = 0; i < 3; i++)
      expect((await app.call('PATCH', `/api/projects/${created.body.id}`, { body: { description: `d${i}` } })).status).toBe(200);
    expect((await preparedPerConnection(app, 'INSERT INTO audit_log')).every((n) => n === 0)).toBe(true);
  });
});

describe('DB_PREPARED_STATEMENTS unset', () => {
  const app = useTestApp();

  it('the server keeps the statements it repeats prepared, and answers as usual', async () => {
    const created = await app.call('POST', '/api/projects', { body: { name: 'prepared' } });
    for (let i = 0; i < 3; i++) {
      const read = await app.call('GET', `/api/projects/${created.body.id}`);
      expect(read.status).toBe(200);
      expect(read.body.name).toBe('prepared');
    }
    const counts = await preparedPerConnection(app, projectRead);
    expect(counts.some((n) => n > 0)).toBe(true);
    // the audit and snapshot rows each mutation sends with its COMMIT too, and the trail is whole
    for (let i = 0; i < 3; i++)
      expect((await app.call('PATCH', `/api/projects/${created.body.id}`, { body: { description: `d${i}` } })).status).toBe(200);
    expect((await preparedPerConnection(app, 'INSERT INTO audit_log')).some((n) => n > 0)).toBe(true);
    const audit = await app.call('GET', '/api/audit?entity_type=project');
    expect(audit.status).toBe(200);
    const trail = audit.body.filter((e: { entity_id: string }) => e.entity_id === created.body.id);
    expect(trail.map((e: { action: string; new_value: { description?: string } | null }) => [e.action, e.new_value?.description])).toEqual([
      ['updated', 'd2'],
      ['updated', 'd1'],
      ['updated', 'd0'],
      ['created', ''],
    ]);
  });
});
