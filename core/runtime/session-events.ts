import * as z from 'zod';
import { parseQuery } from '../query-params';
import { NotFoundError, ValidationError } from '../errors';
import type { Deps } from '../ports';
import { parseSessionId } from './ids';
import {
  eventsOfLine,
  parseLine,
  toolCallIdsOf,
  toolResultIdOf,
  type ParsedLine,
  type ReplayEvent,
  type ToolCallInfo,
  type ToolResultInfo,
} from './replay';
import { emptyTree, markRewound, noteTreeEntry, PARENT_ID_NAME } from './transcript-tree';
import {
  EVENTS_DEFAULT_LIMIT,
  EVENTS_MAX_LIMIT,
  agentParam,
  cappedCount,
  filesOf,
  isBlank,
  lineCursor,
  openOr404,
  scan,
} from './session-reader';
import { indexedEventDetail, indexedEventsPage, indexedOr404 } from './session-replay-index';

/**
 * GET /api/rt/sessions/:sessionId/events and /events/:line: a transcript's replay events, a page at a
 * time, and one event with the lines it pairs with; from the replay index when the adapter keeps one,
 * else by streaming the transcript.
 */
export const sessionEventsQuerySchema = z.strictObject({
  agent: agentParam,
  afterLine: lineCursor,
  limit: cappedCount(EVENTS_DEFAULT_LIMIT, EVENTS_MAX_LIMIT),
});

/**
 * GET /api/rt/sessions/:sessionId/events?agent&afterLine&limit. Steps:
 * 1. validate ids and numbers; open the transcript as a stream (404 when absent);
 * 2. read every line once: lines up to afterLine only feed the tool-call index and `partial`;
 *    lines after it become events until the page holds `limit` (whole lines: the last line's extra
 *    blocks stay on the page); later lines complete the pairing of the page's tool calls with their
 *    results, `partial`, `hasMore` and `totalLines` — the scan always reaches the end (or the cap).
 */
export async function sessionEvents(deps: Pick<Deps, 'runtime'>, rawSessionId: unknown, query: unknown) {
  const sessionId = parseSessionId(rawSessionId);
  const q = parseQuery(sessionEventsQuerySchema, query);
  const indexed = await indexedOr404(filesOf(deps), q.agent, sessionId);
  if (indexed) {
    const page = await indexedEventsPage(indexed, q.afterLine, q.limit);
    return {
      sessionId,
      agentId: q.agent,
      events: markRewound(page.events, indexed.state.tree),
      nextAfterLine: page.hasMore ? page.lastPageLine : Math.max(q.afterLine, indexed.totalLines),
      hasMore: page.hasMore,
      totalLines: indexed.totalLines,
      partial: indexed.state.partial,
      truncated: indexed.truncated,
    };
  }
  const transcript = await openOr404(filesOf(deps), q.agent, sessionId);
  const events: ReplayEvent[] = [];
  const callLineById = new Map<string, number>();
  const awaitingResult = new Map<string, ToolCallInfo[]>();
  let partial = false;
  let lastPageLine = 0;
  let hasMore = false;
  const tree = emptyTree();

  const totalLines = await scan(transcript, (n, text) => {
    if (isBlank(text)) return;
    const parsed = parseLine(text);
    if (!parsed.ok) partial = true;
    noteTreeEntry(tree, parsed);
    const pageFull = events.length >= q.limit;
    if (n <= q.afterLine || pageFull) {
      if (pageFull && n > lastPageLine) hasMore = true;
      for (const id of toolCallIdsOf(parsed)) if (!callLineById.has(id)) callLineById.set(id, n);
      const answered = toolResultIdOf(parsed);
      if (answered !== undefined) {
        for (const call of awaitingResult.get(answered) ?? []) call.resultLine = n;
        awaitingResult.delete(answered);
      }
      return;
    }
    lastPageLine = n;
    for (const event of eventsOfLine(n, parsed)) {
      events.push(event);
      if (event.kind === 'tool_call') {
        const call = event.tool as ToolCallInfo;
        if (call.toolCallId) {
          if (!callLineById.has(call.toolCallId)) callLineById.set(call.toolCallId, n);
          awaitingResult.set(call.toolCallId, [...(awaitingResult.get(call.toolCallId) ?? []), call]);
        }
      } else if (event.kind === 'tool_result') {
        const result = event.tool as ToolResultInfo;
        if (result.toolCallId) {
          result.callLine = callLineById.get(result.toolCallId) ?? null;
          for (const call of awaitingResult.get(result.toolCallId) ?? []) call.resultLine = n;
          awaitingResult.delete(result.toolCallId);
        }
      }
    }
  });

  return {
    sessionId,
    agentId: q.agent,
    events: markRewound(events, tree),
    nextAfterLine: hasMore ? lastPageLine : Math.max(q.afterLine, totalLines),
    hasMore,
    totalLines,
    partial,
    truncated: transcript.truncated,
  };
}

const detailLine = z
  .string()
  .regex(/^\d+$/, 'Invalid line number')
  .transform(Number)
  .pipe(z.number().min(1, 'Invalid line number').max(Number.MAX_SAFE_INTEGER, 'Invalid line number'));
export const sessionEventDetailQuerySchema = z.strictObject({ agent: agentParam });

/**
 * GET /api/rt/sessions/:sessionId/events/:line: the line's events with full bodies, its tool pairing,
 * and the raw parsed line as `source`. 400 "Invalid line number", 404 "Session not found" or "Event not found".
 */
export async function sessionEventDetail(deps: Pick<Deps, 'runtime'>, rawSessionId: unknown, rawLine: unknown, query: unknown) {
  const sessionId = parseSessionId(rawSessionId);
  const lineCheck = detailLine.safeParse(rawLine);
  if (!lineCheck.success)
    throw new ValidationError('Invalid line number', [{ path: 'line', message: 'must be a whole number of 1 or more' }]);
  const line = lineCheck.data;
  const q = parseQuery(sessionEventDetailQuerySchema, query);
  const indexed = await indexedOr404(filesOf(deps), q.agent, sessionId);
  if (indexed) return indexedEventDetail(indexed, sessionId, q.agent, line);
  const transcript = await openOr404(filesOf(deps), q.agent, sessionId);
  let target: ParsedLine | undefined;
  let events: ReplayEvent[] = [];
  const callLineById = new Map<string, number>();
  const awaiting = new Map<string, ToolCallInfo>();
  const tree = emptyTree();

  const totalLines = await scan(transcript, (n, text) => {
    if (text.includes(PARENT_ID_NAME)) noteTreeEntry(tree, parseLine(text));
    if (n < line) {
      // Only a line that calls a tool can matter to the target's pairing; the rest are not parsed.
      if (!text.includes('"toolCall"')) return;
      for (const id of toolCallIdsOf(parseLine(text))) if (!callLineById.has(id)) callLineById.set(id, n);
      return;
    }
    if (n === line) {
      if (isBlank(text)) return;
      target = parseLine(text);
      events = eventsOfLine(n, target, null);
      for (const event of events) {
        if (event.kind === 'tool_call' && (event.tool as ToolCallInfo).toolCallId)
          awaiting.set((event.tool as ToolCallInfo).toolCallId!, event.tool as ToolCallInfo);
        if (event.kind === 'tool_result') {
          const result = event.tool as ToolResultInfo;
          result.callLine = result.toolCallId ? (callLineById.get(result.toolCallId) ?? null) : null;
        }
      }
      return;
    }
    // After the line: only a pending call's result is of interest; lines without the id are skipped unparsed.
    if (awaiting.size === 0) return;
    for (const [id, call] of awaiting) {
      if (!text.includes(id)) continue;
      if (toolResultIdOf(parseLine(text)) === id) {
        call.resultLine = n;
        awaiting.delete(id);
      }
    }
  });

  if (!target || events.length === 0) throw new NotFoundError('Event not found', { line, totalLines });
  const [event, ...extraEvents] = markRewound(events, tree);
  return {
    sessionId,
    agentId: q.agent,
    line,
    found: true,
    event,
    extraEvents,
    source: target.ok ? target.value : target.text,
    totalLines,
    truncated: transcript.truncated,
  };
}
