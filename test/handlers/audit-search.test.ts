import fc from 'fast-check';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { foldAuditSearch, PENDING_ROWS_SEARCHED, UNSEARCHED_COUNT_CAP } from '../../core/audit/list-audit';
import { startAuditSearchFoldTimer } from '../../infra/dispatcher/timer';
import { useTestApp } from '../support/use-app';

/**
 * GET /api/audit?q= over the deferred search index (migration 1020): whatever has been folded,
 * deleted, updated or truncated, q answers what a scan of every audit row's text answers.
 */
const app = useTestApp();

const word = fc.stringMatching(/^[a-z0-9 %_\\"'-]{1,8}$/);

type Step =
  | { kind: 'insert'; texts: string[] }
  | { kind: 'fold'; rows: number }
  | { kind: 'update'; modulo: number; text: string }
  | { kind: 'delete'; modulo: number }
  | { kind: 'truncate' };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('insert' as const), texts: fc.array(word, { minLength: 1, maxLength: 6 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('fold' as const), rows: fc.integer({ min: 1, max: 8 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('update' as const), modulo: fc.integer({ min: 2, max: 4 }), text: word }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), modulo: fc.integer({ min: 2, max: 5 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'truncate' as const }) },
);

async function apply(s: Step): Promise<void> {
  if (s.kind === 'insert') {
    await app.db.query(
      `INSERT INTO audit_log (actor, action, entity_type, entity_id, new_value)
       SELECT 'Searcher', 'noted', 'task', t, jsonb_build_object('note', t) FROM unnest($1::text[]) t`,
      [s.texts],
    );
  } else if (s.kind === 'fold') {
    await foldAuditSearch(app.db, s.rows);
  } else if (s.kind === 'update') {
    await app.db.query(`UPDATE audit_log SET new_value = jsonb_build_object('note', $2::text) WHERE id % $1 = 0`, [s.modulo, s.text]);
  } else if (s.kind === 'delete') {
    await app.db.query('DELETE FROM audit_log WHERE id % $1 = 1', [s.modulo]);
  } else {
    await app.db.query('TRUNCATE audit_log');
  }
}

/** The oracle: every audit row's text scanned, newest first. */
async function scanned(q: string): Promise<number[]> {
  const { rows } = await app.db.query<{ id: string; text: string }>(
    `SELECT id, audit_search_text(actor, action, entity_type, old_value, new_value) AS text FROM audit_log ORDER BY timestamp DESC, id DESC`,
  );
  return rows.filter((r) => r.text.includes(q.toLowerCase())).map((r) => Number(r.id));
}

async function searched(q: string): Promise<number[]> {
  const res = await app.call('GET', `/api/audit?limit=500&q=${encodeURIComponent(q)}`);
  expect(res.status).toBe(200);
  return (res.body as Array<{ id: number }>).map((r) => r.id);
}

describe('GET /api/audit?q= with rows indexed and rows still pending', () => {
  it('answers what a scan of every row answers, after any mix of writes, folds, updates, deletes and truncates', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 12 }),
        fc.array(word, { minLength: 1, maxLength: 3 }),
        async (steps, probes) => {
          await app.db.query('TRUNCATE audit_log');
          for (const s of steps) {
            await apply(s);
            for (const q of [...probes, 'searcher', 'note'])
              expect(await searched(q), `q=${q} after ${JSON.stringify(s)}`).toEqual(await scanned(q));
          }
          // each row is in exactly one of the index and the queue, and the index holds its current text
          const { rows } = await app.db.query<{ misplaced: number }>(
            `SELECT count(*)::int AS misplaced FROM audit_log a
             LEFT JOIN audit_search s ON s.audit_id = a.id LEFT JOIN audit_search_pending p ON p.audit_id = a.id
            WHERE (s.audit_id IS NULL) = (p.audit_id IS NULL)
               OR s.search_text <> audit_search_text(a.actor, a.action, a.entity_type, a.old_value, a.new_value)`,
          );
          expect(rows[0]!.misplaced).toBe(0);
          const { rows: orphans } = await app.db.query<{ n: number }>(
            `SELECT (SELECT count(*) FROM audit_search s WHERE NOT EXISTS (SELECT 1 FROM audit_log a WHERE a.id = s.audit_id))
                + (SELECT count(*) FROM audit_search_pending p WHERE NOT EXISTS (SELECT 1 FROM audit_log a WHERE a.id = p.audit_id)) AS n`,
          );
          expect(Number(orphans[0]!.n)).toBe(0);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('finds a row whose transaction commits while a fold runs, and the next tick indexes it', async () => {
    await app.db.query('TRUNCATE audit_log');
    const writer = new pg.Client({ connectionString: app.databaseUrl });
    await writer.connect();
    try {
      await writer.query('BEGIN');
      await writer.query(
        `INSERT INTO audit_log (actor, action, entity_type, new_value) VALUES ('late-writer', 'noted', 'task', '{"note":"straggler"}')`,
      );
      // the fold cannot see the uncommitted row: it leaves it queued rather than losing it
      expect(await foldAuditSearch(app.db)).toBe(0);
      await writer.query('COMMIT');
    } finally {
      await writer.end();
    }
    expect(await searched('straggler')).toHaveLength(1);
    expect((await app.call('POST', '/api/workflow-runs/dispatcher/tick')).status).toBe(200);
    const { rows } = await app.db.query('SELECT search_text FROM audit_search');
    expect(rows).toEqual([{ search_text: expect.stringContaining('straggler') }]);
    expect((await app.db.query('SELECT 1 FROM audit_search_pending')).rows).toEqual([]);
    expect(await searched('STRAGGLER')).toHaveLength(1);
  });

  it('answers the tick when the fold after it fails, and leaves the rows queued for the next pass', async () => {
    await app.db.query('TRUNCATE audit_log');
    await app.db.query(`INSERT INTO audit_log (actor, action, entity_type, new_value) VALUES ('op', 'noted', 'task', '{"note":"kept"}')`);
    await app.db.query('ALTER FUNCTION audit_search_fold(integer) RENAME TO audit_search_fold_away');
    try {
      expect((await app.call('POST', '/api/workflow-runs/dispatcher/tick')).status).toBe(200);
    } finally {
      await app.db.query('ALTER FUNCTION audit_search_fold_away(integer) RENAME TO audit_search_fold');
    }
    expect((await app.db.query('SELECT 1 FROM audit_search_pending')).rows).toHaveLength(1);
    expect(await searched('kept')).toHaveLength(1);
    expect((await app.call('POST', '/api/workflow-runs/dispatcher/tick')).status).toBe(200);
    expect((await app.db.query('SELECT 1 FROM audit_search_pending')).rows).toHaveLength(0);
  });

  it('with more rows waiting than it computes, searches the newest of them and says how many it left out', async () => {
    await app.db.query('TRUNCATE audit_log');
    const waiting = PENDING_ROWS_SEARCHED + 37;
    // the oldest waiting row holds the needle; the newest PENDING_ROWS_SEARCHED do not
    await app.db.query(
      `INSERT INTO audit_log (actor, action, entity_type, new_value)
       SELECT 'op', 'noted', 'task', jsonb_build_object('note', CASE WHEN g = 1 THEN 'oldest needle' ELSE 'hay ' || g END)
         FROM generate_series(1, ${waiting}) g ORDER BY g`,
    );
    const partial = await app.call('GET', '/api/audit?q=oldest%20needle');
    expect(partial.status).toBe(200);
    expect(partial.body).toEqual([]);
    expect(partial.headers['x-audit-search-unsearched']).toBe(String(waiting - PENDING_ROWS_SEARCHED));
    // the newest waiting rows are found as before
    const newest = await app.call('GET', `/api/audit?q=${encodeURIComponent(`hay ${waiting}`)}`);
    expect((newest.body as unknown[]).length).toBe(1);
    // a search without q reads audit_log alone: nothing is left out, nothing is said
    expect((await app.call('GET', '/api/audit?limit=1')).headers['x-audit-search-unsearched']).toBeUndefined();

    await foldAuditSearch(app.db, Number.MAX_SAFE_INTEGER);
    const whole = await app.call('GET', '/api/audit?q=oldest%20needle');
    expect((whole.body as unknown[]).length).toBe(1);
    expect(whole.headers['x-audit-search-unsearched']).toBeUndefined();
  });

  it('counts what it left out up to a cap, then says "at least"', async () => {
    await app.db.query('TRUNCATE audit_log');
    await app.db.query(
      `INSERT INTO audit_log (actor, action, entity_type, new_value)
       SELECT 'op', 'noted', 'task', jsonb_build_object('note', 'row ' || g) FROM generate_series(1, ${PENDING_ROWS_SEARCHED + UNSEARCHED_COUNT_CAP + 5}) g`,
    );
    const res = await app.call('GET', '/api/audit?q=row');
    expect(res.status).toBe(200);
    expect(res.headers['x-audit-search-unsearched']).toBe(`${UNSEARCHED_COUNT_CAP}+`);
  });

  it("is folded by the runner's own timer with no dispatcher running, and the left-out rows are found once it has", async () => {
    await app.db.query('TRUNCATE audit_log');
    await app.db.query(
      `INSERT INTO audit_log (actor, action, entity_type, new_value)
       SELECT 'op', 'noted', 'task', jsonb_build_object('note', CASE WHEN g = 1 THEN 'first of many' ELSE 'later ' || g END)
         FROM generate_series(1, ${PENDING_ROWS_SEARCHED * 3}) g ORDER BY g`,
    );
    expect((await app.call('GET', '/api/audit?q=first%20of%20many')).body).toEqual([]);
    const timer = startAuditSearchFoldTimer(app.ctx, 10);
    try {
      // bounded: the queue empties within a few passes (each takes up to 20,000 rows)
      for (let pass = 0; pass < 500; pass++) {
        const { rows } = await app.db.query('SELECT 1 FROM audit_search_pending LIMIT 1');
        if (!rows.length) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      await timer.stop();
    }
    const found = await app.call('GET', '/api/audit?q=first%20of%20many');
    expect((found.body as unknown[]).length).toBe(1);
    expect(found.headers['x-audit-search-unsearched']).toBeUndefined();
  });
});
