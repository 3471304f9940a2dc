import { migrate } from '../infra/db/migrate';
import { PgDb } from '../infra/db/pg-db';
import { outboxEventBus } from '../infra/events/outbox-event-bus';
import { benchDatabase, connections, report, seconds } from './support';

/**
 * Event-carrying commits: BENCH_CONNECTIONS writers (20) each commit, for BENCH_SECONDS (three times, alternating with the baseline; the best of each counts), transactions
 * of one small INSERT plus one event through the outbox event bus. Baseline: the same transactions
 * without the event. The ratio is what carrying an event costs a writer (migration 0900 took the
 * commit lock out of it); the events are sequenced after commit, as in the server.
 */
async function commitsPerSecond(db: PgDb, withEvent: boolean): Promise<number> {
  let commits = 0;
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async (_x, writer) => {
      while (performance.now() < until) {
        await db.transaction(async (tx) => {
          await tx.query('INSERT INTO bench_outbox_writes (writer, at) VALUES ($1, now())', [writer]);
          if (withEvent) await outboxEventBus.publish(tx, { name: 'bench:write', payload: { writer }, channel: 'events' });
        });
        commits++;
      }
    }),
  );
  return (commits / (performance.now() - started)) * 1000;
}

export async function run(): Promise<void> {
  const database = await benchDatabase();
  const db = new PgDb(database.url, { max: connections + 2 });
  await migrate(db);
  try {
    await db.query(
      'CREATE TABLE IF NOT EXISTS bench_outbox_writes (id bigserial PRIMARY KEY, writer int NOT NULL, at timestamptz NOT NULL)',
    );
    await db.query('TRUNCATE bench_outbox_writes, event_outbox');
    // Alternated, best of three each: a shared machine's load drifts over a run, and this keeps it from favouring either side.
    let baseline = 0;
    let ours = 0;
    for (let round = 0; round < 3; round++) {
      baseline = Math.max(baseline, await commitsPerSecond(db, false));
      ours = Math.max(ours, await commitsPerSecond(db, true));
    }
    const { rows } = await db.query<{ waiting: number }>(
      'SELECT count(*) FILTER (WHERE position IS NULL)::int AS waiting FROM event_outbox',
    );
    report(
      `event-carrying commits (${connections} connections)`,
      ours,
      baseline,
      'commits/s',
      `one event each; ${rows[0]!.waiting} still waiting for a position at the end`,
    );
  } finally {
    await db.close();
    await database.close();
  }
}
