import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgDb } from '../../infra/db/pg-db';
import { OUTBOX_NOTIFY_CHANNEL } from '../../infra/events/outbox-event-bus';
import { OutboxListener } from '../../infra/events/outbox-listener';
import type { OutboxEvent } from '../../infra/events/outbox-store';
import { useTestApp } from '../support/use-app';
import { startStreamRunner, watch, type StreamRunner } from './stream-support';

/*
 * Migration 0990: a sequencing pass's NOTIFY carries the events it numbered when they are at most
 * 64 and fit in a notification, and the last position otherwise; listeners use a carried array
 * only when it follows their cursor. What must hold: the carried events are the rows as a read
 * answers them, the fallbacks happen where they must, and a stream client gets every event once,
 * in order, whichever form its runner was told in.
 */
const app = useTestApp();
let listener: pg.Client;
const notes: string[] = [];
let writers: PgDb;

beforeAll(async () => {
  listener = new pg.Client({ connectionString: app.databaseUrl });
  await listener.connect();
  listener.on('notification', (m) => notes.push(m.payload ?? ''));
  await listener.query(`LISTEN ${OUTBOX_NOTIFY_CHANNEL}`);
  writers = new PgDb(app.databaseUrl, { max: 2 });
});

afterAll(async () => {
  await listener?.end();
  await writers?.close();
});

/** The notification that reported `last`, as a carried array or a bare position (waits for it to arrive). */
async function notificationOf(last: number): Promise<{ id: number; channel: string; name: string; payload: string }[] | number> {
  for (let i = 0; i < 200; i++) {
    for (const note of notes) {
      if (note.startsWith('[')) {
        const events = JSON.parse(note) as { id: number; channel: string; name: string; payload: string }[];
        if (events.at(-1)?.id === last) return events;
      } else if (Number(note) === last) {
        return last;
      }
    }
    // the notification is delivered asynchronously on the listening connection: yield to it
    await listener.query('SELECT 1');
  }
  throw new Error(`no notification reported position ${last}`);
}

async function sequenceNow(): Promise<number> {
  const { rows } = await writers.query<{ last: number | null }>('SELECT event_outbox_sequence(10000) AS last');
  if (rows[0]!.last !== null) return rows[0]!.last;
  // a runner's sweep sequenced them first: the watermark holds where they ended
  return (await writers.query<{ last: number }>('SELECT last_position AS last FROM event_outbox_watermark')).rows[0]!.last;
}

describe('what a sequencing pass notifies', () => {
  it('a few small events: the rows themselves, as a read after the cursor answers them', async () => {
    await writers.query(
      `INSERT INTO event_outbox (channel, name, payload) VALUES ('stream', 'carry-a', '{"n": 1, "text": "é \\"quoted\\""}'), ('events', 'carry-b', 'null'), ('stream', 'carry-c', '[1, 2.5, {"k": true}]')`,
    );
    const last = await sequenceNow();
    const carried = await notificationOf(last);
    expect(Array.isArray(carried)).toBe(true);
    const { rows } = await writers.query(
      `SELECT position AS id, channel, name, payload::text AS payload FROM event_outbox WHERE position > $1 ORDER BY position`,
      [last - 3],
    );
    expect(carried).toEqual(rows);
    expect((carried as { name: string }[]).map((e) => e.name)).toEqual(['carry-a', 'carry-b', 'carry-c']);
  });

  it('more than 64 events in one pass, or events too large for a notification: the last position only', async () => {
    await writers.query(
      `INSERT INTO event_outbox (channel, name, payload) SELECT 'stream', 'carry-many', jsonb_build_object('n', g) FROM generate_series(1, 65) g`,
    );
    const many = await sequenceNow();
    expect(await notificationOf(many)).toBe(many);

    await writers.query(
      `INSERT INTO event_outbox (channel, name, payload) VALUES ('stream', 'carry-big', jsonb_build_object('text', repeat('x', 8000)))`,
    );
    const big = await sequenceNow();
    expect(await notificationOf(big)).toBe(big);
  });
});

describe('stream clients, whichever form the notification took', () => {
  let runner: StreamRunner;
  beforeAll(async () => {
    runner = await startStreamRunner(app);
  });
  afterAll(async () => {
    await runner?.close();
  });

  it('get single events, a burst of 70 in one transaction and a 10 KB event each once, in order', async () => {
    const stream = watch(`${runner.url}/api/events/stream`, ['carried']);
    await stream.opened;
    const publish = (payloads: object[]) =>
      writers.transaction(async (tx) => {
        for (const payload of payloads) await app.ctx.deps.events.publish(tx, { name: 'carried', channel: 'stream', payload });
      });
    let n = 0;
    for (let i = 0; i < 3; i++) await publish([{ n: n++ }]);
    await publish(Array.from({ length: 70 }, () => ({ n: n++ })));
    await publish([{ n: n++, text: 'y'.repeat(10_000) }]);
    for (let i = 0; i < 3; i++) await publish([{ n: n++ }]);
    await stream.waitFor((e) => (e.data as { n: number }).n === n - 1, 10_000);
    stream.close();
    expect(stream.events.map((e) => (e.data as { n: number }).n)).toEqual(Array.from({ length: n }, (_x, i) => i));
    const ids = stream.events.map((e) => Number(e.id));
    expect(ids.every((id, i) => i === 0 || id === ids[i - 1]! + 1)).toBe(true);
    expect((stream.events[73]!.data as { text: string }).text).toHaveLength(10_000);
  });
});

describe('a listener told in carried arrays', () => {
  it('uses an array only when it starts right after its cursor: one beyond is read instead, one already seen is dropped', async () => {
    const got: OutboxEvent[] = [];
    const seen = new Set<() => void>();
    const outbox = new OutboxListener({
      connectionString: () => app.databaseUrl,
      onEvents: (events) => {
        got.push(...events);
        for (const w of seen) w();
      },
      sweepIntervalMs: 60_000,
    });
    const until = (match: () => boolean) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`not reached; got ${JSON.stringify(got.map((e) => e.name))}`)), 5_000);
        const check = () => {
          if (!match()) return;
          clearTimeout(timer);
          seen.delete(check);
          resolve();
        };
        seen.add(check);
        check();
      });
    await outbox.start();
    try {
      const start = outbox.cursor!;
      const notify = (events: object[]) => writers.query('SELECT pg_notify($1, $2)', [OUTBOX_NOTIFY_CHANNEL, JSON.stringify(events)]);
      // beyond the cursor: nothing such was sequenced, so the read it causes finds nothing, and nothing is handed out
      await notify([{ id: start + 2, channel: 'stream', name: 'not-stored', payload: '{}' }]);
      await writers.query(
        `INSERT INTO event_outbox (channel, name, payload) VALUES ('stream', 'real-1', '{}'), ('stream', 'real-2', '{}')`,
      );
      await sequenceNow();
      await until(() => got.some((e) => e.name === 'real-2'));
      expect(got.map((e) => [e.id, e.name])).toEqual([
        [start + 1, 'real-1'],
        [start + 2, 'real-2'],
      ]);
      // what was already handed out, told again, is not handed out twice
      await notify(got.map((e) => ({ ...e, name: `again-${e.name}` })));
      await writers.query(`INSERT INTO event_outbox (channel, name, payload) VALUES ('stream', 'real-3', '{}')`);
      await sequenceNow();
      await until(() => got.some((e) => e.name === 'real-3'));
      expect(got.map((e) => e.name)).toEqual(['real-1', 'real-2', 'real-3']);
      expect(outbox.cursor).toBe(start + 3);
    } finally {
      await outbox.stop();
    }
  });
});
