/**
 * The publishing side of bench/stream-fanout.ts, run as its own process:
 *   node --import tsx bench/stream-publisher.ts <database-url> <outbox|notify> <events-per-second> <seconds> [events-per-transaction]
 * `outbox` publishes through the event bus, `events-per-transaction` (default 1) per transaction;
 * `notify` sends a bare NOTIFY (the baseline). Each payload carries its send time; the last
 * stdout line is a JSON summary.
 */
import { PgDb } from '../infra/db/pg-db';
import { outboxEventBus } from '../infra/events/outbox-event-bus';

const [url, mode, rateArg, secondsArg, batchArg] = process.argv.slice(2);
const batch = Math.max(1, Number(batchArg ?? 1));
const rate = Number(rateArg) / (mode === 'notify' ? 1 : batch);
const seconds = Number(secondsArg);
const db = new PgDb(url!, { max: 8 });
const wallNow = () => performance.timeOrigin + performance.now();

const commitMs: number[] = [];

async function publishOne(n: number): Promise<void> {
  const payload = { n, t: wallNow() };
  const begun = performance.now();
  if (mode === 'notify') {
    await db.query('SELECT pg_notify($1, $2)', ['bench_bare_notify', JSON.stringify(payload)]);
  } else {
    await db.transaction(async (tx) => {
      for (let i = 0; i < batch; i++)
        await outboxEventBus.publish(tx, { name: 'bench:tick', payload: { ...payload, i }, channel: 'events' });
    });
    commitMs.push(performance.now() - begun);
  }
}

const total = Math.round(rate * seconds);
const started = performance.now();
let sent = 0;
let inFlight = 0;
let failed = 0;
await new Promise<void>((resolve) => {
  const tick = () => {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate));
    // At most 8 in flight (the pool): a publisher that falls behind shows up as a lower achieved rate.
    while (sent < due && inFlight < 8) {
      inFlight++;
      publishOne(sent++)
        .catch(() => failed++)
        .finally(() => inFlight--);
    }
    if (sent >= total && inFlight === 0) return resolve();
    setTimeout(tick, 1);
  };
  tick();
});
const elapsed = (performance.now() - started) / 1000;
await db.close();
const events = mode === 'notify' ? sent : sent * batch;
commitMs.sort((a, b) => a - b);
const commitP50 = commitMs[Math.floor(commitMs.length / 2)] ?? 0;
const commitP99 = commitMs[Math.min(commitMs.length - 1, Math.floor(commitMs.length * 0.99))] ?? 0;
console.log(JSON.stringify({ sent: events, failed, achievedRate: events / elapsed, commitP50, commitP99 }));
