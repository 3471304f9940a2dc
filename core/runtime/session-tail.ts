import * as z from 'zod';
import { ValidationError } from '../errors';
import type { Deps } from '../ports';
import { parseQuery } from '../query-params';
import { parseSessionId } from './ids';
import type { ReplayEvent } from './replay';
import { agentParam, EVENTS_MAX_LIMIT, lineCursor } from './session-reader';
import { sessionEvents } from './session-events';

/** GET /api/rt/sessions/:sessionId/tail?agent&afterLine (the OpenAPI document reads it too). */
export const sessionTailQuerySchema = z.strictObject({ agent: agentParam, afterLine: lineCursor });

/** Where a tail starts: the session, its agent and the last line the client already has. */
export interface SessionTailStart {
  sessionId: string;
  agentId: string;
  afterLine: number;
}

/** An SSE event id of this stream is a transcript line number. */
const lastEventIdSchema = z
  .string()
  .trim()
  .regex(/^\d{1,15}$/, 'must be the line number of the last event received');

/**
 * Validates a tail request. `Last-Event-ID` (the line of the last event the client received) wins
 * over `afterLine`: an EventSource that reconnects sends it with the URL it first opened, whose
 * afterLine is where it started, not where it stopped.
 */
export function sessionTailStart(rawSessionId: unknown, query: unknown, lastEventId: string | undefined): SessionTailStart {
  const sessionId = parseSessionId(rawSessionId);
  const q = parseQuery(sessionTailQuerySchema, query);
  if (lastEventId === undefined || lastEventId.trim() === '') return { sessionId, agentId: q.agent, afterLine: q.afterLine };
  const resumed = lastEventIdSchema.safeParse(lastEventId);
  if (!resumed.success) {
    throw new ValidationError('Last-Event-ID must be the line number of the last event received', [
      { path: 'Last-Event-ID', message: resumed.error.issues[0]!.message },
    ]);
  }
  return { sessionId, agentId: q.agent, afterLine: Number(resumed.data) };
}

/** A tail's next events: what GET …/events answers after the cursor, and the cursor after them. */
export interface SessionTailPage {
  events: ReplayEvent[];
  nextAfterLine: number;
  /** More lines wait beyond this page (read the next one at once). */
  hasMore: boolean;
}

/**
 * The events after `afterLine`, exactly as GET /api/rt/sessions/:sessionId/events answers them
 * (whole lines, at most EVENTS_MAX_LIMIT events a page); 404 when the session is unknown.
 * The last line is held back while it is not JSON and nothing follows it: the runtime may be
 * half-way through writing it, and the next read sees it whole. Once a line follows it, it is sent
 * as the `invalid` event it is.
 */
export async function sessionTailPage(
  deps: Pick<Deps, 'runtime'>,
  start: Pick<SessionTailStart, 'sessionId' | 'agentId'>,
  afterLine: number,
): Promise<SessionTailPage> {
  const page = await sessionEvents(deps, start.sessionId, {
    agent: start.agentId,
    afterLine: String(afterLine),
    limit: String(EVENTS_MAX_LIMIT),
  });
  const last = page.events.at(-1);
  if (!page.hasMore && last && last.type === 'invalid' && last.line === page.totalLines) {
    const events = page.events.filter((e) => e.line !== last.line);
    return { events, nextAfterLine: Math.max(afterLine, last.line - 1), hasMore: false };
  }
  return { events: page.events, nextAfterLine: page.nextAfterLine, hasMore: page.hasMore };
}
