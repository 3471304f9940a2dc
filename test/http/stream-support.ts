import http from 'node:http';
import { EventSource } from 'eventsource';
import { createParser } from 'eventsource-parser';
import { config } from '../../infra/config';
import { EventStreams, type EventStreamsOptions } from '../../infra/events/event-streams';
import { startRunner, type Runner } from '../../infra/http/runner';
import type { TestApp } from '../support/test-app';

/** A runner with streams on a test app's context, as infra/http/main.ts wires them. */
export interface StreamRunner {
  runner: Runner;
  streams: EventStreams;
  url: string;
  close(): Promise<void>;
}

export async function startStreamRunner(app: TestApp, options: EventStreamsOptions & { port?: number } = {}): Promise<StreamRunner> {
  const streams = new EventStreams(app.ctx, { retryMs: 100, ...options });
  const runner = await startRunner({ host: '127.0.0.1', port: options.port ?? 0, largeBodyLimit: config().restoreMaxBytes, streams });
  await streams.start();
  return {
    runner,
    streams,
    url: runner.url,
    async close() {
      await runner.close();
      await streams.stop();
    },
  };
}

/** Stores a stream setting (SSE_MAX_CLIENTS, SSE_HEARTBEAT_INTERVAL, …) as PATCH /api/settings would. */
export async function setStreamSetting(app: TestApp, key: string, value: unknown): Promise<void> {
  await app.db.query(
    `INSERT INTO settings (key, value, source, type) VALUES ($1, $2, 'config', 'number')
     ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
    [key, JSON.stringify(value)],
  );
}

/** Resolves once `condition` holds, checked every turn of the event loop; throws after `timeoutMs`. */
export async function waitUntil(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setImmediate(r));
  }
}

export interface Received {
  id: string;
  name: string;
  data: unknown;
}

/** An EventSource (the `eventsource` package) that records every named event it is told to watch. */
export interface WatchedStream {
  source: EventSource;
  events: Received[];
  opened: Promise<void>;
  errors: Array<{ code?: number; message?: string }>;
  /** Resolves with the first recorded event matching, or rejects after `timeoutMs`. */
  waitFor(match: (e: Received) => boolean, timeoutMs?: number): Promise<Received>;
  close(): void;
}

export function watch(
  url: string,
  names: string[],
  options: { headers?: Record<string, string>; lastEventId?: string; onEvent?: (event: Received) => void } = {},
): WatchedStream {
  const events: Received[] = [];
  const errors: WatchedStream['errors'] = [];
  const waiters = new Set<() => void>();
  let first = true;
  const source = new EventSource(url, {
    fetch: (input, init) => {
      const headers: Record<string, string> = { ...init.headers, ...(options.headers ?? {}) };
      // Only the first connection gets the given Last-Event-ID; reconnects carry the library's own.
      if (first && options.lastEventId !== undefined) headers['Last-Event-ID'] = options.lastEventId;
      first = false;
      return fetch(input, { ...init, headers });
    },
  });
  for (const name of names) {
    source.addEventListener(name, (event) => {
      const received = { id: event.lastEventId, name, data: JSON.parse(event.data) };
      events.push(received);
      options.onEvent?.(received);
      for (const w of waiters) w();
    });
  }
  source.addEventListener('error', (event) => {
    errors.push({ code: (event as { code?: number }).code, message: (event as { message?: string }).message });
    for (const w of waiters) w();
  });
  const opened = new Promise<void>((resolve, reject) => {
    const fail = () => reject(new Error(`stream ${url} did not open: ${JSON.stringify(errors)}`));
    const timer = setTimeout(fail, 10_000);
    source.addEventListener('open', () => (clearTimeout(timer), resolve()), { once: true });
    // A refusal (4xx/5xx) closes an EventSource for good.
    source.addEventListener('error', () => source.readyState === source.CLOSED && (clearTimeout(timer), fail()));
  });
  opened.catch(() => undefined); // awaited by the tests that care; a stream closed early must not fail the run
  return {
    source,
    events,
    errors,
    opened,
    waitFor(match, timeoutMs = 5_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = events.find(match);
          if (found) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(found);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching event within ${timeoutMs} ms; got ${JSON.stringify(events)}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () => source.close(),
  };
}

/** The raw frames of a stream, parsed by eventsource-parser, comments included (EventSource hides those). */
export interface RawStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  comments: string[];
  events: Array<{ id?: string; event?: string; data: string }>;
  retry?: number;
  /** The first bytes received, to check the literal first frame. */
  firstChunk: string;
  /** Resolves once `count` comments have arrived. */
  waitForComments(count: number, timeoutMs?: number): Promise<void>;
  ended: Promise<void>;
  /** Stops reading, so the server's writes back up (a client too slow to read). */
  pause(): void;
  close(): void;
}

export function openRaw(url: string, headers: Record<string, string> = {}): Promise<RawStream> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      const waiters = new Set<() => void>();
      const raw: RawStream = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        comments: [],
        events: [],
        firstChunk: '',
        waitForComments(count, timeoutMs = 5_000) {
          return new Promise((ok, fail) => {
            const timer = setTimeout(
              () => fail(new Error(`only ${raw.comments.length} comments: ${JSON.stringify(raw.comments)}`)),
              timeoutMs,
            );
            const check = () => {
              if (raw.comments.length >= count) {
                clearTimeout(timer);
                waiters.delete(check);
                ok();
              }
            };
            waiters.add(check);
            check();
          });
        },
        ended: new Promise((ok) => res.on('close', () => ok())),
        pause: () => res.pause(),
        close: () => req.destroy(),
      };
      const parser = createParser({
        onEvent: (e) => raw.events.push({ id: e.id, event: e.event, data: e.data }),
        onComment: (c) => raw.comments.push(c.trim()),
        onRetry: (ms) => (raw.retry = ms),
      });
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (!raw.firstChunk) raw.firstChunk = chunk;
        parser.feed(chunk);
        for (const w of waiters) w();
      });
      res.on('error', () => undefined);
      resolve(raw);
    });
    req.on('error', reject);
  });
}
