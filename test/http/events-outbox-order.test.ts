import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgDb } from '../../infra/db/pg-db';
import { useTestApp } from '../support/use-app';
import { startStreamRunner, watch, type Received, type StreamRunner, type WatchedStream } from './stream-support';

/**
 * The outbox's promise (migration 0900, docs/adr/0005-outbox-sequencer.md) under concurrency:
 * writers on several connections commit in an order the property chooses, some roll back, and a
 * reader that reconnects with its Last-Event-ID at chosen moments sees exactly the committed
 * events, each once, and the events of one entity in the order their transactions committed.
 */
const app = useTestApp();
let writers: PgDb;
let runnerA: StreamRunner;
let runnerB: StreamRunner;

beforeAll(async () => {
  writers = new PgDb(app.databaseUrl, { max: 8 });
  await writers.query('CREATE TABLE outbox_prop_entities (k int PRIMARY KEY, n int NOT NULL DEFAULT 0)');
  await writers.query('INSERT INTO outbox_prop_entities (k) SELECT generate_series(0, 2)');
  runnerA = await startStreamRunner(app);
  runnerB = await startStreamRunner(app);
});

afterAll(async () => {
  await runnerA?.close();
  await runnerB?.close();
  await writers?.close();
});

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  settled: boolean;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const d: Deferred<T> = {
    promise: new Promise<T>((r) => (resolve = r)),
    resolve: (v) => ((d.settled = true), resolve(v)),
    settled: false,
  };
  return d;
}

interface PropEvent {
  run: number;
  writer: number;
  j: number;
  entity: number;
}

/** A reader that keeps its events across reconnects, each time resuming from the last id it got. */
class ResumingReader {
  readonly received: Received[] = [];
  private stream: WatchedStream | undefined;
  private readonly waiters = new Set<() => void>();

  /** `from`: the position to resume after on the first connection (a reader that has not received anything yet must not start "live"). */
  constructor(
    private readonly urls: string[],
    private readonly from: string,
  ) {}

  async connect(turn: number): Promise<void> {
    const last = this.received.at(-1)?.id ?? this.from;
    this.stream?.close();
    const stream: WatchedStream = watch(`${this.urls[turn % this.urls.length]}/api/events/stream`, ['prop', 'resync'], {
      lastEventId: last,
      // Only the current stream counts: a closed one may still hand over what was in flight.
      onEvent: (event) => {
        if (this.stream !== stream) return;
        this.received.push(event);
        for (const w of this.waiters) w();
      },
    });
    this.stream = stream;
    await stream.opened;
  }

  until(match: (events: Received[]) => boolean, timeoutMs = 10_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!match(this.received)) return;
        this.waiters.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`condition not met within ${timeoutMs} ms; received ${this.received.length} events`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  close(): void {
    this.stream?.close();
  }
}

const writerPlan = fc.record({
  entity: fc.integer({ min: 0, max: 2 }),
  events: fc.integer({ min: 1, max: 3 }),
  rollback: fc.boolean(),
});

describe('the outbox under concurrent writers and reconnecting readers', () => {
  let run = 0;

  it('delivers exactly the committed events, each once, one entity in commit order, across reconnects to either runner', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(writerPlan, { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat(), { minLength: 6, maxLength: 6 }),
        fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
        async (plans, picks, reconnects) => {
          run += 1;
          const { rows } = await writers.query<{ last: number }>('SELECT last_position AS last FROM event_outbox_watermark');
          const reader = new ResumingReader([runnerA.url, runnerB.url], String(rows[0]!.last));
          let turn = 0;
          await reader.connect(turn++);
          try {
            const inserted = plans.map(() => deferred<void>());
            const gates = plans.map(() => deferred<boolean>());
            const outcomes = plans.map((plan, writer) =>
              writers
                .transaction(async (tx) => {
                  // The entity's row lock: writers of one entity commit one after another, as real changes do.
                  await tx.query('UPDATE outbox_prop_entities SET n = n + 1 WHERE k = $1', [plan.entity]);
                  for (let j = 0; j < plan.events; j++) {
                    await app.ctx.deps.events.publish(tx, {
                      name: 'prop',
                      channel: 'stream',
                      payload: { run, writer, j, entity: plan.entity },
                    });
                  }
                  inserted[writer]!.resolve();
                  if (!(await gates[writer]!.promise)) throw new Error('rolled back on purpose');
                })
                .then(
                  () => 'committed' as const,
                  () => 'rolled back' as const,
                ),
            );

            const commitOrder: number[] = [];
            const open = new Set(plans.map((_p, i) => i));
            for (let step = 0; open.size > 0;) {
              const ready = [...open].filter((i) => inserted[i]!.settled);
              if (ready.length === 0) {
                await Promise.race([...open].map((i) => inserted[i]!.promise));
                continue;
              }
              const writer = ready[picks[step % picks.length]! % ready.length]!;
              gates[writer]!.resolve(!plans[writer]!.rollback);
              if ((await outcomes[writer]!) === 'committed') commitOrder.push(writer);
              open.delete(writer);
              if (reconnects[step % reconnects.length]) await reader.connect(turn++);
              step += 1;
            }

            // A sentinel committed after every writer: once it arrives, everything before it has.
            await writers.transaction((tx) =>
              app.ctx.deps.events.publish(tx, { name: 'prop', channel: 'stream', payload: { run, writer: -1, j: 0, entity: -1 } }),
            );
            await reader.until((events) => events.some((e) => (e.data as PropEvent).run === run && (e.data as PropEvent).writer === -1));

            expect(reader.received.filter((e) => e.name === 'resync')).toEqual([]);
            const mine = reader.received.map((e) => e.data as PropEvent).filter((e) => e.run === run && e.writer >= 0);
            const expected = commitOrder.flatMap((writer) => Array.from({ length: plans[writer]!.events }, (_x, j) => `${writer}.${j}`));
            expect(mine.map((e) => `${e.writer}.${e.j}`).sort()).toEqual([...expected].sort());
            for (const entity of [0, 1, 2]) {
              const seen = mine.filter((e) => e.entity === entity).map((e) => `${e.writer}.${e.j}`);
              const committed = expected.filter((key) => plans[Number(key.split('.')[0])]!.entity === entity);
              expect(seen).toEqual(committed);
            }
            // Ids increase along the stream, across reconnects and runners.
            const ids = reader.received.map((e) => Number(e.id));
            expect(ids).toEqual([...ids].sort((a, b) => a - b));
            expect(new Set(ids).size).toBe(ids.length);
          } finally {
            reader.close();
          }
        },
      ),
      { numRuns: 12 },
    );
  }, 120_000);

  it('a transaction left open holding an event row holds back only that event: later commits reach clients meanwhile, and it follows its commit', async () => {
    run += 1;
    const stream = watch(`${runnerA.url}/api/events/stream`, ['prop']);
    const mineOf = () => stream.events.filter((e) => (e.data as PropEvent).run === run).map((e) => (e.data as PropEvent).writer);
    try {
      await stream.opened;
      const inserted = deferred<void>();
      const release = deferred<boolean>();
      // its row is written early (as a claim's statement writes its own) and gets the smaller insert id
      const long = writers.transaction(async (tx) => {
        await tx.query(`INSERT INTO event_outbox (channel, name, payload) VALUES ('stream', 'prop', $1)`, [
          JSON.stringify({ run, writer: 1, j: 0, entity: 0 }),
        ]);
        inserted.resolve();
        await release.promise;
      });
      await inserted.promise;
      await writers.transaction((tx) =>
        app.ctx.deps.events.publish(tx, { name: 'prop', channel: 'stream', payload: { run, writer: 2, j: 0, entity: 1 } }),
      );
      await stream.waitFor((e) => (e.data as PropEvent).run === run && (e.data as PropEvent).writer === 2);
      expect(mineOf()).toEqual([2]);

      release.resolve(true);
      await long;
      // nothing asks for a pass for the raw row: the runners' own sweep numbers it
      await stream.waitFor((e) => (e.data as PropEvent).run === run && (e.data as PropEvent).writer === 1);
      expect(mineOf()).toEqual([2, 1]);
      const ids = stream.events.map((e) => Number(e.id));
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
    } finally {
      stream.close();
    }
  });

  it('a client of runner B sees a change made through runner A, and resuming on A with its Last-Event-ID misses nothing', async () => {
    const onB = watch(`${runnerB.url}/api/events`, ['project:changed']);
    await onB.opened;
    const created = await fetch(`${runnerA.url}/api/projects`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Seen across runners' }),
    });
    const project = (await created.json()) as { id: string };
    const first = await onB.waitFor((e) => (e.data as { projectId: string }).projectId === project.id);
    onB.close();
    // Changes while no client is connected, then a resume on the other runner.
    for (const description of ['one', 'two', 'three']) {
      const res = await fetch(`${runnerA.url}/api/projects/${project.id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ description }),
      });
      expect(res.status).toBe(200);
    }
    const onA = watch(`${runnerA.url}/api/events`, ['project:changed'], { lastEventId: first.id });
    try {
      await onA.opened;
      await onA.waitFor(() => onA.events.filter((e) => (e.data as { projectId: string }).projectId === project.id).length >= 3);
      const resumed = onA.events.filter((e) => (e.data as { projectId: string }).projectId === project.id);
      expect(resumed.map((e) => (e.data as { action: string }).action)).toEqual(['updated', 'updated', 'updated']);
      expect(resumed.every((e) => Number(e.id) > Number(first.id))).toBe(true);
    } finally {
      onA.close();
    }
  });

  it('an event published inside a savepoint that rolls back is never stored; the rest of its transaction is', async () => {
    await writers.transaction(async (tx) => {
      await app.ctx.deps.events.publish(tx, { name: 'savepoint-kept', payload: { n: 1 } });
      await tx
        .transaction(async (inner) => {
          await app.ctx.deps.events.publish(inner, { name: 'savepoint-dropped', payload: { n: 2 } });
          throw new Error('roll the savepoint back');
        })
        .catch(() => undefined);
      await app.ctx.deps.events.publish(tx, { name: 'savepoint-kept', payload: { n: 3 } });
    });
    const { rows } = await writers.query<{ name: string; n: number }>(
      `SELECT name, (payload->>'n')::int AS n FROM event_outbox WHERE name LIKE 'savepoint-%' ORDER BY id`,
    );
    expect(rows).toEqual([
      { name: 'savepoint-kept', n: 1 },
      { name: 'savepoint-kept', n: 3 },
    ]);
  });
});
