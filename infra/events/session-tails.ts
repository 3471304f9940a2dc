import type http from 'node:http';
import { DomainError, NotFoundError } from '../../core/errors';
import type { TranscriptWatch } from '../../core/ports/runtime';
import { sessionTailPage, sessionTailStart, type SessionTailPage, type SessionTailStart } from '../../core/runtime/session-tail';
import { statusByErrorCode } from '../../handlers/middleware/error-status';
import type { AppContext } from '../app-context';
import { logger } from '../logger';
import { sendJson, StreamClient } from './stream-client';
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

/** One frame per event: the id is its transcript line, the data the event as GET …/events answers it. */
function transcriptFrames(page: SessionTailPage): string {
  return page.events.map((event) => `id: ${event.line}\nevent: transcript\ndata: ${JSON.stringify(event)}\n\n`).join('');
}

/**
 * Live tails of runtime sessions, served by the runner beside the event streams (which authenticate
 * and admit the request, then hand it here): the session's events after the client's cursor, then
 * each new one as the transcript grows. Growth is learnt from the runtime adapter's watch (fs.watch
 * on the transcript file, or the gateway's streaming history) and read through the session reader,
 * so a tail's frames are exactly what GET /api/rt/sessions/:sessionId/events answers. Counted apart
 * from the event streams (SSE_MAX_SESSION_TAILS): each holds a watch on the runtime.
 */
export class SessionTails {
  private readonly open = new Set<OpenTail>();

  constructor(
    private readonly ctx: Pick<AppContext, 'deps'>,
    private readonly options: { retryMs: number; maxBufferedBytes: number },
  ) {}

  get size(): number {
    return this.open.size;
  }

  async serve(req: http.IncomingMessage, res: http.ServerResponse, request: SessionTailRequest, settings: StreamSettings): Promise<void> {
    if (this.open.size >= settings.maxSessionTails) {
      logger().warn('session tail refused: tail limit reached', { limit: settings.maxSessionTails });
      return sendJson(
        res,
        503,
        { error: `too many session tails: the limit is ${settings.maxSessionTails} (setting SSE_MAX_SESSION_TAILS); retry later`, code: 'too_many_session_tails', limit: settings.maxSessionTails },
        { 'retry-after': '10' },
      );
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
      start = sessionTailStart(request.pathParameters.sessionId, Object.fromEntries(request.url.searchParams), Array.isArray(raw) ? raw[0] : raw);
      first = await sessionTailPage(this.ctx.deps, start, start.afterLine);
    } catch (err) {
      release();
      if (err instanceof DomainError) return sendJson(res, statusByErrorCode[err.code] ?? 500, err.body());
      logger().error('session tail failed to open', { requestId: request.requestId, error: err });
      return sendJson(res, 500, { error: 'internal error', code: 'internal', requestId: request.requestId });
    }
    if (res.destroyed) return release();

    const client = new StreamClient(res, [], this.options.maxBufferedBytes, () => this.open.delete(tail));
    tail.client = client;
    res.writeHead(200, {
      'access-control-allow-origin': '*',
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      'x-request-id': request.requestId,
    });
    res.write(`: connected\n\nretry: ${this.options.retryMs}\n\n`);
    client.startHeartbeat(settings.heartbeatIntervalMs);
    logger().info('session tail opened', { requestId: request.requestId, tails: this.open.size, afterLine: start.afterLine });
    res.once('close', () => logger().info('session tail closed', { requestId: request.requestId, durationMs: Date.now() - client.openedAt }));

    let cursor = start.afterLine;
    let reading = false;
    let again = false;
    /** Reads and sends what follows the cursor; one read at a time, a change during it asks for one more. */
    const follow = async (page?: SessionTailPage): Promise<void> => {
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      try {
        do {
          again = false;
          let next = page ?? (await sessionTailPage(this.ctx.deps, start, cursor));
          page = undefined;
          for (;;) {
            if (client.isClosed) return;
            // a line's events go out in one write, so a client never resumes from half a line
            if (next.events.length > 0) await client.writePaced(transcriptFrames(next));
            cursor = Math.max(cursor, next.nextAfterLine);
            if (!next.hasMore) break;
            next = await sessionTailPage(this.ctx.deps, start, cursor);
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

    const wake = () => void follow();
    const files = this.ctx.deps.runtime.files;
    if (files?.watchTranscript) {
      tail.watch = files.watchTranscript(start.agentId, start.sessionId, wake);
    } else {
      const timer = setInterval(wake, UNWATCHED_REREAD_MS);
      timer.unref();
      tail.watch = { stop: () => clearInterval(timer) };
    }
    if (client.isClosed) return release();
    await follow(first);
    // lines written between the first read and the watch's start
    wake();
  }

  /** Ends every tail cleanly (the terminating chunk is sent). */
  endAll(): Array<Promise<void>> {
    return [...this.open].map((tail) => {
      const ended = new Promise<void>((resolve) => (tail.res.writableFinished || tail.res.destroyed ? resolve() : tail.res.once('close', () => resolve())));
      if (tail.client) tail.client.drop('shutdown');
      else tail.res.destroy();
      return ended;
    });
  }
}
