import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { outboxEventBus } from '../../infra/events/outbox-event-bus';
import { movableClock } from '../support/fakes';
import { useTestApp } from '../support/use-app';
import { openRaw, setStreamSetting, startStreamRunner, waitUntil, watch, type StreamRunner, type WatchedStream } from './stream-support';

const app = useTestApp();
let server: StreamRunner;
const opened: Array<{ close(): void }> = [];

beforeAll(async () => {
  server = await startStreamRunner(app);
});
afterEach(() => {
  for (const s of opened.splice(0)) s.close();
});
afterAll(async () => {
  await server?.close();
});

function track<T extends { close(): void }>(stream: T): T {
  opened.push(stream);
  return stream;
}

async function publish(name: string, payload: unknown, channel: 'events' | 'stream' = 'events'): Promise<void> {
  await outboxEventBus.publish(app.db, { name, payload, channel });
}

const setSetting = (key: string, value: unknown) => setStreamSetting(app, key, value);

describe('GET /api/events and /api/events/stream', () => {
  it('answers with the SSE headers, `: connected` as the first frame, and a retry hint', async () => {
    const raw = track(await openRaw(`${server.url}/api/events`));
    expect(raw.status).toBe(200);
    expect(raw.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(raw.headers['cache-control']).toBe('no-cache');
    expect(raw.headers.connection).toBe('keep-alive');
    expect(raw.headers['access-control-allow-origin']).toBe('*');
    await raw.waitForComments(1);
    expect(raw.firstChunk.startsWith(': connected\n\n')).toBe(true);
    expect(raw.comments[0]).toBe('connected');
    expect(raw.retry).toBe(100);
  });

  it('answers HEAD on a stream with 405 and `Allow: GET`, opening nothing', async () => {
    await waitUntil(() => server.streams.stats().clients === 0, "the earlier tests' streams to close");
    const res = await fetch(`${server.url}/api/events`, { method: 'HEAD' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
    expect(server.streams.stats().clients).toBe(0);
  });

  it('delivers project:changed from a PATCH with a numeric id, event name and JSON data', async () => {
    const stream = track(watch(`${server.url}/api/events`, ['project:changed']));
    await stream.opened;
    const created = await app.http('POST', '/api/projects', { body: { name: 'Streamed' } });
    await app.http('PATCH', `/api/projects/${created.body.id}`, { body: { name: 'Streamed again' } });
    const updated = await stream.waitFor((e) => (e.data as { action: string }).action === 'updated');
    expect(updated.data).toEqual({ action: 'updated', projectId: created.body.id });
    expect(updated.id).toMatch(/^\d+$/);
    const [createdEvent] = stream.events;
    expect(createdEvent!.data).toEqual({ action: 'created', projectId: created.body.id });
    expect(Number(createdEvent!.id)).toBeLessThan(Number(updated.id));
  });

  it('carries channel `stream` events only on /api/events/stream, and `events` events on both, in order', async () => {
    const names = ['run-updated', 'task:changed', 'marker'];
    const browser = track(watch(`${server.url}/api/events`, names));
    const bridge = track(watch(`${server.url}/api/events/stream`, names));
    await Promise.all([browser.opened, bridge.opened]);
    await publish('run-updated', { runId: 'r1' }, 'stream');
    await publish('task:changed', { action: 'updated', taskId: 't1' }, 'events');
    await publish('marker', { n: 1 }, 'events');
    await browser.waitFor((e) => e.name === 'marker');
    await bridge.waitFor((e) => e.name === 'marker');
    expect(browser.events.map((e) => e.name)).toEqual(['task:changed', 'marker']);
    expect(bridge.events.map((e) => e.name)).toEqual(['run-updated', 'task:changed', 'marker']);
  });

  it('never sends an event whose transaction rolled back', async () => {
    const stream = track(watch(`${server.url}/api/events/stream`, ['doomed', 'marker']));
    await stream.opened;
    await app.db
      .transaction(async (tx) => {
        await outboxEventBus.publish(tx, { name: 'doomed', payload: { n: 1 }, channel: 'stream' });
        throw new Error('roll back');
      })
      .catch(() => undefined);
    const nested = app.db.transaction(async (tx) => {
      await tx
        .transaction(async (inner) => {
          await outboxEventBus.publish(inner, { name: 'doomed', payload: { n: 2 }, channel: 'stream' });
          throw new Error('roll back the savepoint only');
        })
        .catch(() => undefined);
      await outboxEventBus.publish(tx, { name: 'marker', payload: { n: 1 }, channel: 'stream' });
    });
    await nested;
    await stream.waitFor((e) => e.name === 'marker');
    await publish('marker', { n: 2 }, 'stream');
    await stream.waitFor((e) => e.name === 'marker' && (e.data as { n: number }).n === 2);
    expect(stream.events.map((e) => e.name)).toEqual(['marker', 'marker']);
  });

  it('numbers events in commit order, so a client resuming after a later-started commit still gets the earlier one', async () => {
    const stream = track(watch(`${server.url}/api/events/stream`, ['slow', 'fast']));
    await stream.opened;
    let commitSlow!: () => void;
    const slowMayCommit = new Promise<void>((r) => (commitSlow = r));
    let inserted!: () => void;
    const slowInserted = new Promise<void>((r) => (inserted = r));
    const slow = app.db.transaction(async (tx) => {
      await outboxEventBus.publish(tx, { name: 'slow', payload: {}, channel: 'stream' });
      inserted();
      await slowMayCommit;
    });
    await slowInserted;
    await publish('fast', {}, 'stream');
    const fast = await stream.waitFor((e) => e.name === 'fast');
    commitSlow();
    await slow;
    const late = await stream.waitFor((e) => e.name === 'slow');
    expect(Number(late.id)).toBeGreaterThan(Number(fast.id));

    const resumed = track(watch(`${server.url}/api/events/stream`, ['slow', 'fast', 'resync'], { lastEventId: fast.id }));
    await resumed.waitFor((e) => e.name === 'slow');
    expect(resumed.events).toEqual([late]);
  });

  it('replays exactly the missed events to a client that reconnects with Last-Event-ID, then goes live without gaps or repeats', async () => {
    const names = ['tick', 'resync'];
    const first = track(watch(`${server.url}/api/events/stream`, names));
    await first.opened;
    await publish('tick', { n: 1 });
    const seen = await first.waitFor((e) => (e.data as { n: number }).n === 1);
    first.close();
    for (let n = 2; n <= 6; n++) await publish('tick', { n }, n % 2 ? 'events' : 'stream');

    const resumed = track(watch(`${server.url}/api/events/stream`, names, { lastEventId: seen.id }));
    await resumed.opened;
    // Live events racing the replay: published while the client is switching over.
    await Promise.all([publish('tick', { n: 7 }), publish('tick', { n: 8 })]);
    await resumed.waitFor((e) => (e.data as { n: number }).n === 8 || (e.data as { n: number }).n === 7);
    await publish('tick', { n: 9 });
    await resumed.waitFor((e) => (e.data as { n: number }).n === 9);
    const ns = resumed.events.map((e) => (e.data as { n: number }).n);
    expect(ns.slice(0, 5)).toEqual([2, 3, 4, 5, 6]);
    expect([...ns].sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
    const ids = resumed.events.map((e) => Number(e.id));
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);

    // /api/events replays only its own channel (2, 4 and 6 went to `stream`).
    const browser = track(watch(`${server.url}/api/events`, names, { lastEventId: seen.id }));
    await browser.waitFor((e) => (e.data as { n: number }).n === 9);
    expect(browser.events.map((e) => (e.data as { n: number }).n).sort((a, b) => a - b)).toEqual([3, 5, 7, 8, 9]);
    const browserIds = browser.events.map((e) => Number(e.id));
    expect([...browserIds].sort((a, b) => a - b)).toEqual(browserIds);
  });

  it('resumes across a runner restart: the library reconnects by itself with Last-Event-ID and misses nothing', async () => {
    const own = await startStreamRunner(app);
    const port = new URL(own.url).port;
    const stream = track(watch(`${own.url}/api/events`, ['tick', 'resync']));
    await stream.opened;
    await publish('tick', { n: 'before' });
    await stream.waitFor((e) => (e.data as { n: string }).n === 'before');
    await own.close();
    await publish('tick', { n: 'while-down-1' });
    await publish('tick', { n: 'while-down-2' });
    const again = await startStreamRunner(app, { port: Number(port) });
    try {
      await stream.waitFor((e) => (e.data as { n: string }).n === 'while-down-2');
      await publish('tick', { n: 'after' });
      await stream.waitFor((e) => (e.data as { n: string }).n === 'after');
      expect(stream.events.map((e) => (e.data as { n: string }).n)).toEqual(['before', 'while-down-1', 'while-down-2', 'after']);
    } finally {
      stream.close();
      await again.close();
    }
  });

  it('tells a client to resync when its Last-Event-ID is unknown, from another database, or pruned', async () => {
    for (const lastEventId of ['not-an-id', '999999999']) {
      const resumed = track(watch(`${server.url}/api/events`, ['resync', 'tick'], { lastEventId }));
      const resync = await resumed.waitFor((e) => e.name === 'resync');
      expect((resync.data as { reason: string }).reason).toMatch(lastEventId === 'not-an-id' ? /unknown/ : /not issued/);
      await publish('tick', { n: lastEventId });
      await resumed.waitFor((e) => e.name === 'tick');
    }

    await publish('tick', { n: 'old' });
    const { rows } = await app.db.query<{ id: number }>(`SELECT last_position AS id FROM event_outbox_watermark`);
    const oldId = rows[0]!.id;
    await publish('tick', { n: 'newer' });
    const realClock = app.ctx.deps.clock;
    app.ctx.deps.clock = movableClock(new Date(Date.now() + 25 * 60 * 60 * 1000));
    try {
      expect(await server.streams.prune()).toBeGreaterThan(0);
    } finally {
      app.ctx.deps.clock = realClock;
    }
    expect((await app.db.query(`SELECT count(*)::int AS n FROM event_outbox`)).rows[0]).toEqual({ n: 0 });
    const resumed = track(watch(`${server.url}/api/events`, ['resync', 'tick'], { lastEventId: String(oldId - 1) }));
    const resync = await resumed.waitFor((e) => e.name === 'resync');
    expect((resync.data as { reason: string }).reason).toMatch(/pruned/);
  });

  it('prunes only events older than the retention', async () => {
    await publish('keep', {});
    const realClock = app.ctx.deps.clock;
    app.ctx.deps.clock = movableClock(new Date(Date.now() + 60 * 60 * 1000));
    try {
      await server.streams.prune();
    } finally {
      app.ctx.deps.clock = realClock;
    }
    const { rows } = await app.db.query<{ name: string }>(`SELECT name FROM event_outbox WHERE name = 'keep'`);
    expect(rows).toHaveLength(1);
  });

  it('sends heartbeat comment frames every SSE_HEARTBEAT_INTERVAL', async () => {
    await setSetting('SSE_HEARTBEAT_INTERVAL', 40);
    try {
      const raw = track(await openRaw(`${server.url}/api/events/stream`));
      await raw.waitForComments(4);
      expect(raw.comments.slice(0, 4)).toEqual(['connected', 'heartbeat', 'heartbeat', 'heartbeat']);
    } finally {
      await app.db.query(`DELETE FROM settings WHERE key = 'SSE_HEARTBEAT_INTERVAL'`);
    }
  });

  it('refuses clients beyond SSE_MAX_CLIENTS with 503 JSON, and admits again once one leaves', async () => {
    await setSetting('SSE_MAX_CLIENTS', 2);
    try {
      await waitUntil(() => server.streams.stats().clients === 0, 'earlier streams to close');
      const a = track(await openRaw(`${server.url}/api/events`));
      const b = track(await openRaw(`${server.url}/api/events/stream`));
      expect([a.status, b.status]).toEqual([200, 200]);
      const refused = await fetch(`${server.url}/api/events`);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBeTruthy();
      const body = (await refused.json()) as { error: string; code: string };
      expect(body.error).toMatch(/SSE_MAX_CLIENTS/);
      expect(body.code).toBe('too_many_stream_clients');
      a.close();
      await waitUntil(() => server.streams.stats().clients === 1, 'the closed stream to be released');
      const c = track(await openRaw(`${server.url}/api/events`));
      expect(c.status).toBe(200);
    } finally {
      await app.db.query(`DELETE FROM settings WHERE key = 'SSE_MAX_CLIENTS'`);
    }
  });

  it('ignores an invalid SSE_MAX_CLIENTS row and uses the default', async () => {
    await setSetting('SSE_MAX_CLIENTS', -3);
    try {
      const raw = track(await openRaw(`${server.url}/api/events`));
      expect(raw.status).toBe(200);
    } finally {
      await app.db.query(`DELETE FROM settings WHERE key = 'SSE_MAX_CLIENTS'`);
    }
  });

  it('frees every client and its heartbeat timer when clients disconnect', async () => {
    await waitUntil(() => server.streams.stats().clients === 0, 'earlier streams to close');
    // Observe the heartbeat intervals (a distinctive period tells them apart from other timers).
    await setSetting('SSE_HEARTBEAT_INTERVAL', 29_999);
    const live = new Set<unknown>();
    const realSet = globalThis.setInterval;
    const realClear = globalThis.clearInterval;
    const setSpy = vi.spyOn(globalThis, 'setInterval').mockImplementation(((fn: () => void, ms?: number) => {
      const handle = realSet(fn, ms);
      if (ms === 29_999) live.add(handle);
      return handle;
    }) as typeof setInterval);
    const clearSpy = vi.spyOn(globalThis, 'clearInterval').mockImplementation(((handle: NodeJS.Timeout) => {
      live.delete(handle);
      realClear(handle);
    }) as typeof clearInterval);
    try {
      const streams = await Promise.all(Array.from({ length: 20 }, (_, i) => openRaw(`${server.url}/api/events${i % 2 ? '/stream' : ''}`)));
      await waitUntil(() => server.streams.stats().clients === 20, 'twenty clients');
      expect(live.size).toBe(20);
      for (const s of streams) s.close();
      await waitUntil(() => server.streams.stats().clients === 0, 'all streams to be released');
      await waitUntil(() => live.size === 0, 'every heartbeat timer to be cleared');
    } finally {
      setSpy.mockRestore();
      clearSpy.mockRestore();
      await app.db.query(`DELETE FROM settings WHERE key = 'SSE_HEARTBEAT_INTERVAL'`);
    }
    // an event after everyone left goes nowhere and breaks nothing
    await publish('after-all-left', {});
    const late = track(watch(`${server.url}/api/events`, ['after-all-left-2']));
    await late.opened;
    await publish('after-all-left-2', {});
    await late.waitFor(() => true);
  });

  it('answers 404 where streams are not served: the plain handler (as a Lambda) and a runner without streams', async () => {
    for (const path of ['/api/events', '/api/events/stream']) {
      const viaHandler = await app.call('GET', path);
      expect(viaHandler.status).toBe(404);
      expect(viaHandler.body.error).toMatch(/served by the local runner/);
      const viaPlainRunner = await app.http('GET', path);
      expect(viaPlainRunner.status).toBe(404);
    }
  });

  it('keeps every event when the LISTEN connection is cut: the listener reconnects and catches up from its cursor', async () => {
    const stream = track(watch(`${server.url}/api/events/stream`, ['gap-check']));
    await stream.opened;
    await publish('gap-check', { n: 1 });
    await stream.waitFor((e) => (e.data as { n: number }).n === 1);
    const { rows } = await app.db.query<{ n: number }>(
      `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = 'task-server-outbox-listener'`,
    );
    expect(rows[0]!.n).toBeGreaterThanOrEqual(1);
    for (let n = 2; n <= 4; n++) await publish('gap-check', { n });
    await stream.waitFor((e) => (e.data as { n: number }).n === 4, 10_000);
    expect(stream.events.map((e) => (e.data as { n: number }).n)).toEqual([1, 2, 3, 4]);
    await waitUntil(() => server.streams.stats().listening, 'the listener to be connected again');
  });

  it('refuses new streams with 503 once shutdown has begun, and ends the open ones cleanly', async () => {
    const own = await startStreamRunner(app);
    try {
      const raw = await openRaw(`${own.url}/api/events`);
      await raw.waitForComments(1);
      await own.streams.endAll();
      await raw.ended;
      // endAll alone (as runner.close() calls it) leaves the port open: a late request is refused
      const refused = await fetch(`${own.url}/api/events`);
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { error: string }).error).toMatch(/shutting down/);
      expect(own.streams.stats().clients).toBe(0);
    } finally {
      await own.close();
    }
  });

  it('drops a client that does not read once its buffer passes the bound, while a reading client gets everything', async () => {
    const bounded = await startStreamRunner(app, { maxBufferedBytes: 64 * 1024 });
    try {
      const reader = track(watch(`${bounded.url}/api/events/stream`, ['bulk']));
      await reader.opened;
      const stalled = await openRaw(`${bounded.url}/api/events/stream`);
      stalled.pause();
      await waitUntil(() => bounded.streams.stats().clients === 2, 'both clients');
      const big = 'x'.repeat(32 * 1024);
      let published = 0;
      for (let round = 0; round < 200 && bounded.streams.stats().dropped === 0; round++) {
        await app.db.transaction(async (tx) => {
          for (let i = 0; i < 8; i++)
            await outboxEventBus.publish(tx, { name: 'bulk', payload: { n: published++, big }, channel: 'stream' });
        });
        await reader.waitFor((e) => (e.data as { n: number }).n === published - 1, 10_000);
      }
      expect(bounded.streams.stats().dropped).toBe(1);
      expect(bounded.streams.stats().clients).toBe(1);
      expect(reader.events.map((e) => (e.data as { n: number }).n)).toEqual(Array.from({ length: published }, (_, i) => i));
      stalled.close();
    } finally {
      await bounded.close();
    }
  });
});
