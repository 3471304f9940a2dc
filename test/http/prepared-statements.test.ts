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
    (await db.transaction((tx) => tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement = $1`, [text]))).rows[0]!.n;

  it('prepares a text on its second use with parameters, never a one-off or a text without parameters, and answers alike', async () => {
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
        const { rows } = await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE strpos(statement, $1) > 0`, [fragment]);
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
  });
});
