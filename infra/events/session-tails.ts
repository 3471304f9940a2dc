import type http from 'node:http';
import { DomainError, NotFoundError, TooManySessionTailsError } from '../../core/errors';
import type { TranscriptWatch } from '../../core/ports/runtime';
import { sessionTailPage, sessionTailStart, type SessionTailPage, type SessionTailStart } from '../../core/runtime/session-tail';
import type { AppContext } from '../app-context';
import { logger } from '../logger';
import { openEventStream, StreamClient } from './stream-client';
import { sendError } from '../http/json-answer';
import type { StreamSettings } from './stream-settings';

/** The route-table path of a session's live tail. */
export const SESSION_TAIL_PATH = '/api/rt/sessions/:sessionId/tail';

/** A source without a watch (a runtime adapter that offers none) is re-read this often while a tail is open. */
const UNWATCHED_REREAD_MS = 5_000;

export interface SessionTailRequest {
  url: URL;
  requestId: string;
  pathParameters: Record<string, string>;
}

interface OpenTail {
  client: StreamClient | undefined;
  watch: TranscriptWatch | undefined;
  res: http.ServerResponse;
}

/** A page's frames, built once for every tail that is sent it. */
const framesOfPage = new WeakMap<SessionTailPage, string>();

/** One frame per event: the id is its transcript line, the data the event as GET …/events answers it. */
function transcriptFrames(page: SessionTailPage): string {
  let text = framesOfPage.get(page);
  if (text === undefined) {
    text = page.events.map((event) => `id: ${event.line}\nevent: transcript\ndata: ${JSON.stringify(event)}\n\n`).join('');
    framesOfPage.set(page, text);
  }
  return text;
}

/**
 * One transcript followed for every tail of it: a single watch on the runtime, a count of the
 * changes it reported, and the reads in flight by cursor. A read is shared only by tails woken by
 * the same change or an earlier one (it started after that change was reported, so it sees it).
 */
interface FollowedTranscript {
  watch: TranscriptWatch;
  changes: number;
  wakers: Set<() => void>;
  reads: Map<number, { changes: number; page: Promise<SessionTailPage> }>;
}

/**
 * Live tails of runtime sessions, served by the runner beside the event streams (which authenticate
 * and admit the request, then hand it here): the session's events after the client's cursor, then
 * each new one as the transcript grows. Growth is learnt from the runtime adapter's watch (fs.watch
 * on the transcript file, or the gateway's streaming history) and read through the session reader,
 * so a tail's frames are exactly what GET /api/rt/sessions/:sessionId/events answers. Counted apart
 * from the event streams (SSE_MAX_SESSION_TAILS): they hold watches on the runtime (one per
 * transcript followed, shared by its tails) and read it, which the event streams do not.
 */
export class SessionTails {
  private readonly open = new Set<OpenTail>();
  private readonly followed = new Map<string, FollowedTranscript>();

  constructor(
    private readonly ctx: Pick<AppContext, 'deps'>,
    private readonly options: { retryMs: number; maxBufferedBytes: number },
  ) {}

  get size(): number {
    return this.open.size;
  }

  /** Follows the transcript for one more tail; the returned watch's stop lets go of it (the last one stops the runtime's watch). */
  private followTranscript(start: SessionTailStart, wake: () => void): TranscriptWatch {
    const key = `${start.agentId}/${start.sessionId}`;
    let followed = this.followed.get(key);
    if (!followed) {
      const entry: FollowedTranscript = { watch: { stop() {} }, changes: 0, wakers: new Set(), reads: new Map() };
      const changed = () => {
        entry.changes++;
        for (const waker of entry.wakers) waker();
      };
      const files = this.ctx.deps.runtime.files;
      if (files?.watchTranscript) {
        entry.watch = files.watchTranscript(start.agentId, start.sessionId, changed);
      } else {
        const timer = setInterval(changed, UNWATCHED_REREAD_MS);
        timer.unref();
        entry.watch = { stop: () => clearInterval(timer) };
      }
      followed = entry;
      this.followed.set(key, entry);
    }
    const entry = followed;
    entry.wakers.add(wake);
    // reads already in flight may predate what this tail's first read saw: it shares none of them
    entry.changes++;
    return {
      stop: () => {
        entry.wakers.delete(wake);
        if (entry.wakers.size === 0 && this.followed.get(key) === entry) {
          this.followed.delete(key);
          entry.watch.stop();
        }
      },
    };
  }

  /** The page after `cursor`, shared with the tails of the same transcript that ask for it after the same change. */
  private readAfter(start: SessionTailStart, cursor: number): Promise<SessionTailPage> {
    const entry = this.followed.get(`${start.agentId}/${start.sessionId}`);
    if (!entry) return sessionTailPage(this.ctx.deps, start, cursor);
    const known = entry.reads.get(cursor);
    if (known && known.changes === entry.changes) return known.page;
    const page = sessionTailPage(this.ctx.deps, start, cursor);
    const read = { changes: entry.changes, page };
    entry.reads.set(cursor, read);
    const forget = () => {
      if (entry.reads.get(cursor) === read) entry.reads.delete(cursor);
    };
    page.then(forget, forget);
    return page;
  }

  async serve(req: http.IncomingMessage, res: http.ServerResponse, request: SessionTailRequest, settings: StreamSettings): Promise<void> {
    if (this.open.size >= settings.maxSessionTails) {
      logger().warn('session tail refused: tail limit reached', { limit: settings.maxSessionTails });
      return sendError(res, new TooManySessionTailsError(settings.maxSessionTails), { 'retry-after': '10' });
    }
    // the slot is held from here, so tails opening at once cannot all pass the limit
    const tail: OpenTail = { client: undefined, watch: undefined, res };
    this.open.add(tail);
    const release = () => {
      this.open.delete(tail);
      tail.watch?.stop();
      tail.client?.release();
    };
    res.on('close', release);

    let start: SessionTailStart;
    let first: SessionTailPage;
    try {
      const raw = req.headers['last-event-id'];
      start = sessionTailStart(
        request.pathParameters.sessionId,
        Object.fromEntries(request.url.searchParams),
        Array.isArray(raw) ? raw[0] : raw,
      );
      first = await sessionTailPage(this.ctx.deps, start, start.afterLine);
    } catch (err) {
      release();
      if (!(err instanceof DomainError)) logger().error('session tail failed to open', { requestId: request.requestId, error: err });
      return sendError(res, err, {}, request.requestId);
    }
    if (res.destroyed) return release();

    const client = new StreamClient(res, [], this.options.maxBufferedBytes, () => this.open.delete(tail));
    tail.client = client;
    openEventStream(res, request.requestId, this.options.retryMs);
    client.startHeartbeat(settings.heartbeatIntervalMs);
    logger().info('session tail opened', { requestId: request.requestId, tails: this.open.size, afterLine: start.afterLine });
    res.once('close', () =>
      logger().info('session tail closed', { requestId: request.requestId, durationMs: Date.now() - client.openedAt }),
    );

    let cursor = start.afterLine;
    let reading = false;
    let again = false;
    /** Reads and sends what follows the cursor; one read at a time, a change during it asks for one more. */
    const sendNew = async (page?: SessionTailPage): Promise<void> => {
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      try {
        do {
          again = false;
          let next = page ?? (await this.readAfter(start, cursor));
          page = undefined;
          for (;;) {
            if (client.isClosed) return;
            // a line's events go out in one write, so a client never resumes from half a line
            if (next.events.length > 0) await client.writePaced(transcriptFrames(next));
            cursor = Math.max(cursor, next.nextAfterLine);
            if (!next.hasMore) break;
            next = await this.readAfter(start, cursor);
          }
        } while (again && !client.isClosed);
      } catch (err) {
        if (err instanceof NotFoundError) {
          // the session is gone (its transcript removed): nothing more will come
          client.drop('shutdown');
          return;
        }
        // the runtime did not answer this time; the next change or fallback read tries again
        logger().warn('session tail read failed', { requestId: request.requestId, error: (err as Error).message });
      } finally {
        reading = false;
      }
    };

    if (client.isClosed) return release();
    tail.watch = this.followTranscript(start, () => void sendNew());
    await sendNew(first);
    // lines written between the first read and the watch's start
    void sendNew();
  }

  /** Ends every tail cleanly (the terminating chunk is sent). */
  endAll(): Array<Promise<void>> {
    return [...this.open].map((tail) => {
      const ended = new Promise<void>((resolve) =>
        tail.res.writableFinished || tail.res.destroyed ? resolve() : tail.res.once('close', () => resolve()),
      );
      if (tail.client) tail.client.drop('shutdown');
      else tail.res.destroy();
      return ended;
    });
  }
}
