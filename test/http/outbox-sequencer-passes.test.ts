import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../core/ports';
import { PgDb } from '../../infra/db/pg-db';
import { SEQUENCE_BATCH, sequenceOutboxSoon } from '../../infra/events/outbox-sequencer';
import { useTestApp } from '../support/use-app';

/*
 * The passes a writer's commit asks for (sequenceOutboxSoon): every committed event gets its
 * position, a backlog beyond one batch drains, and an isolated commit costs one pass, not a
 * second one that only finds nothing waiting.
 */
const app = useTestApp();
let pool: PgDb;

beforeAll(() => {
  pool = new PgDb(app.databaseUrl, { max: 2 });
});

afterAll(async () => {
  await pool?.close();
});

/** The pool, counting the sequencing passes sent through it. */
function countingPasses(): { db: Db; passes: () => number } {
  let passes = 0;
  const db = new Proxy(pool, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (key !== 'query' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
      return (sql: string, params?: unknown[]) => {
        if (sql.includes('event_outbox_sequence')) passes++;
        return (value as Db['query']).call(target, sql, params);
      };
    },
  }) as unknown as Db;
  return { db, passes: () => passes };
}

async function waiting(): Promise<number> {
  const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM event_outbox WHERE position IS NULL');
  return rows[0]!.n;
}

const addEvents = (n: number) =>
  pool.query(
    `INSERT INTO event_outbox (channel, name, payload) SELECT 'events', 'test:pass', jsonb_build_object('n', g) FROM generate_series(1, $1) g`,
    [n],
  );

describe('sequencing passes after commits', () => {
  it('drains a backlog of more than two batches, in order, in one request for a pass', async () => {
    const { db, passes } = countingPasses();
    await addEvents(2 * SEQUENCE_BATCH + 7);
    await sequenceOutboxSoon(db);
    expect(await waiting()).toBe(0);
    // three full or partial batches, plus the check the first pass of a process cannot skip
    expect(passes()).toBeGreaterThanOrEqual(3);
    const { rows } = await pool.query<{ out_of_order: number }>(
      `SELECT count(*)::int AS out_of_order FROM (SELECT id, position, lag(position) OVER (ORDER BY id) AS before FROM event_outbox WHERE name = 'test:pass') x
        WHERE position <= before`,
    );
    expect(rows[0]!.out_of_order).toBe(0);
  });

  it('gives an isolated commit its position with one pass once the process has passed before', async () => {
    const { db, passes } = countingPasses();
    await addEvents(1);
    await sequenceOutboxSoon(db);
    expect(await waiting()).toBe(0);
    const first = passes();
    for (let i = 0; i < 3; i++) {
      await addEvents(1);
      await sequenceOutboxSoon(db);
      expect(await waiting()).toBe(0);
    }
    expect(passes() - first).toBe(3);
  });

  it('answers an empty pass without writing, and without reading the sequenced rows however small the outbox was when the pass was planned', async () => {
    // A connection plans the pass's statements once (PL/pgSQL keeps them): plan it on an empty
    // outbox, as a new install or a truncation leaves it, then let the outbox fill.
    await pool.query('TRUNCATE event_outbox');
    const session = new pg.Client({ connectionString: app.databaseUrl });
    await session.connect();
    try {
      expect((await session.query('SELECT event_outbox_sequence(10) AS last')).rows[0].last).toBeNull();
      await addEvents(3000);
      await session.query('SELECT event_outbox_sequence(10000)');
      expect(await waiting()).toBe(0);
      // the session's table counters so far are sent off, so that the transaction's own start at 0
      await session.query('SELECT pg_stat_force_next_flush()');
      await session.query('BEGIN');
      const { rows } = await session.query('SELECT event_outbox_sequence(10) AS last');
      expect(rows[0].last).toBeNull();
      // no transaction id was needed: nothing was written, so the pass commits no WAL
      expect((await session.query('SELECT pg_current_xact_id_if_assigned() AS xid')).rows[0].xid).toBeNull();
      const scans = await session.query<{ seq_scan: string }>(
        `SELECT seq_scan FROM pg_stat_xact_user_tables WHERE relname = 'event_outbox'`,
      );
      expect(Number(scans.rows[0]?.seq_scan ?? 0)).toBe(0);
      await session.query('COMMIT');
    } finally {
      await session.end();
    }
  });

  it('folds requests made while a pass runs into one more pass that takes their events', async () => {
    const { db } = countingPasses();
    await addEvents(3);
    const running = sequenceOutboxSoon(db);
    await addEvents(2);
    const folded = sequenceOutboxSoon(db);
    expect(folded).toBe(running);
    await folded;
    expect(await waiting()).toBe(0);
  });
});
