import type http from 'node:http';
import type { EventChannel } from '../../core/ports';
import type { OutboxEvent } from './outbox-store';
import { CORS_HEADERS } from '../../handlers/middleware/cors';

/** Answers 200 as an event stream (never buffered by a proxy) and tells the client how soon to reconnect. */
export function openEventStream(res: http.ServerResponse, requestId: string, retryMs: number): void {
  res.writeHead(200, {
    ...CORS_HEADERS,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    'x-request-id': requestId,
  });
  res.write(`: connected\n\nretry: ${retryMs}\n\n`);
}

/** One SSE frame: `id`, `event`, `data` lines (the payload is single-line JSON text from jsonb). */
export function eventFrame(event: Pick<OutboxEvent, 'id' | 'name' | 'payload'>): string {
  return `id: ${event.id}\nevent: ${event.name.replace(/[\r\n]+/g, ' ')}\ndata: ${event.payload}\n\n`;
}

/**
 * A page of committed events prepared once for every client: frames are built once, and the
 * text for each channel set is joined lazily, so fan-out is one write per client per page.
 */
export class FrameBatch {
  readonly firstId: number;
  readonly lastId: number;
  private readonly frames: Array<{ id: number; channel: EventChannel; text: string }>;
  private readonly joined = new Map<string, string>();

  constructor(events: readonly OutboxEvent[]) {
    this.frames = events.map((e) => ({ id: e.id, channel: e.channel, text: eventFrame(e) }));
    this.firstId = events[0]?.id ?? 0;
    this.lastId = events[events.length - 1]?.id ?? 0;
  }

  /** The frames of `channels` with an id above `afterId`, as one string. */
  textFor(channels: readonly EventChannel[], afterId: number): string {
    if (afterId < this.firstId) {
      const key = channels.join(',');
      let text = this.joined.get(key);
      if (text === undefined) {
        text = this.frames
          .filter((f) => channels.includes(f.channel))
          .map((f) => f.text)
          .join('');
        this.joined.set(key, text);
      }
      return text;
    }
    return this.frames
      .filter((f) => f.id > afterId && channels.includes(f.channel))
      .map((f) => f.text)
      .join('');
  }
}

export type DropReason = 'slow-client' | 'shutdown';

/**
 * One open stream. Every write is bounded: when the bytes queued for a client that does not
 * read pass `maxBufferedBytes`, the client is dropped (it may reconnect with
 * Last-Event-ID). While its replay runs, live pages wait in a queue under the same bound.
 */
export class StreamClient {
  /** The highest outbox id this client has been sent (or skipped past): the replay/live seam. */
  lastSentId = 0;
  private queued: FrameBatch[] | undefined;
  private queuedBytes = 0;
  private heartbeat: NodeJS.Timeout | undefined;
  private closed = false;
  readonly openedAt = Date.now();

  constructor(
    readonly res: http.ServerResponse,
    readonly channels: readonly EventChannel[],
    private readonly maxBufferedBytes: number,
    private readonly onDrop: (client: StreamClient, reason: DropReason) => void,
  ) {}

  get isClosed(): boolean {
    return this.closed || this.res.destroyed;
  }

  startHeartbeat(intervalMs: number): void {
    // Not unref'd: it lives exactly as long as its socket, which holds the event loop anyway.
    this.heartbeat = setInterval(() => this.write(': heartbeat\n\n'), intervalMs);
  }

  /** Holds live pages until `endReplay`. */
  beginReplay(): void {
    this.queued = [];
  }

  endReplay(): void {
    const queued = this.queued ?? [];
    this.queued = undefined;
    this.queuedBytes = 0;
    for (const batch of queued) this.deliver(batch);
  }

  deliver(batch: FrameBatch): void {
    if (this.isClosed || batch.lastId <= this.lastSentId) return;
    if (this.queued) {
      this.queuedBytes += batch.textFor(this.channels, 0).length;
      if (this.queuedBytes > this.maxBufferedBytes) return this.drop('slow-client');
      this.queued.push(batch);
      return;
    }
    const text = batch.textFor(this.channels, this.lastSentId);
    this.lastSentId = batch.lastId;
    if (text) this.write(text);
  }

  /**
   * Writes unless the bytes still waiting from earlier writes already pass the bound, in which
   * case the client is dropped: a client's backlog stays under the bound plus one page.
   */
  write(text: string): void {
    if (this.isClosed) return;
    if (this.res.writableLength > this.maxBufferedBytes) return this.drop('slow-client');
    this.res.write(text);
  }

  /** Replay writes wait for the socket instead of dropping: their volume is known and paged. */
  async writePaced(text: string): Promise<void> {
    if (this.isClosed) return;
    if (this.res.write(text)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.on('drain', done);
      this.res.on('close', done);
    });
  }

  drop(reason: DropReason): void {
    if (this.closed) return;
    this.onDrop(this, reason);
    if (reason === 'shutdown') this.res.end();
    else this.res.destroy();
    this.release();
  }

  /** Frees the timer and queued pages; runs on every way a stream ends. */
  release(): void {
    this.closed = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    this.queued = undefined;
    this.queuedBytes = 0;
  }
}
