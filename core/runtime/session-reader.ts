import * as z from 'zod';
import { parseQuery } from '../query-params';
import { NotFoundError, RuntimeCallError, ValidationError } from '../errors';
import type { Deps } from '../ports';
import type { IndexedTranscript, RuntimeStateFiles, TranscriptIndexer, TranscriptStream } from '../ports/runtime';
import { fileNameIdSchema, parseSessionId, parseSessionKey } from './ids';
import { isRecord } from './payload';
import { ReplayLineScanner } from './replay-line-scan';
import { assistantInfoOf, eventsOfLine, parseLine, toolCallIdsOf, toolResultIdOf, type AssistantMessageInfo, type ParsedLine, type ReplayEvent, type ToolCallInfo, type ToolResultInfo } from './replay';
import { emptyTree, isRewound, noteTreeEntry, treePlaceOf, type TranscriptTree } from './transcript-tree';

/** Spec 01 "Agent-runtime session reader" limits. */
export const EVENTS_DEFAULT_LIMIT = 500;
export const EVENTS_MAX_LIMIT = 2000;
export const MESSAGES_DEFAULT_LIMIT = 50;
export const DETAIL_DEFAULT_MESSAGES = 30;
/** Spec silent: message pages and the detail's message count are capped like events are. */
export const MESSAGES_MAX_LIMIT = 500;

const SESSION_NOT_FOUND = 'Session not found';

export function filesOf(deps: Pick<Deps, 'runtime'>): RuntimeStateFiles {
  if (!deps.runtime.files) throw new RuntimeCallError('the runtime state directory is not available to this server', 'unavailable');
  return deps.runtime.files;
}

/** A positive whole number from a query string, capped (a huge value is clamped, not refused). */
export const cappedCount = (fallback: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().min(1, 'must be at least 1'))
    .transform((n) => Math.min(n, max))
    .default(fallback);
export const lineCursor = z.string().regex(/^\d+$/, 'must be a whole number of 0 or more').transform(Number).pipe(z.number().max(Number.MAX_SAFE_INTEGER, 'too large')).default(0);
export const agentParam = fileNameIdSchema.default('main');
const booleanParam = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1').default(false);

// ---------------------------------------------------------------------------------------------
// Session indexes

export interface SessionMetadata {
  sessionId: string;
  key: string;
  kind: string | null;
  channel: string | null;
  icon: string | null;
  status: string | null;
  updatedAt: number | null;
  agentId?: string;
}

/** An agent's session index, newest first; undefined when the agent has no index file. */
export async function readSessionIndex(files: RuntimeStateFiles, agentId: string): Promise<SessionMetadata[] | undefined> {
  const text = await files.readSessionIndex(agentId);
  if (text === undefined) return undefined;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new RuntimeCallError(`session index of agent ${agentId} is not valid JSON`, 'bad_output');
  }
  if (!isRecord(doc)) throw new RuntimeCallError(`session index of agent ${agentId} is not an object`, 'bad_output');
  const sessions: SessionMetadata[] = [];
  for (const [key, value] of Object.entries(doc)) {
    if (!isRecord(value) || typeof value.sessionId !== 'string') continue;
    const str = (v: unknown) => (typeof v === 'string' ? v : null);
    sessions.push({
      sessionId: value.sessionId,
      key,
      kind: str(value.kind) ?? parseSessionKey(key)?.kind ?? null,
      channel: str(value.channel),
      icon: str(value.icon),
      status: str(value.status),
      updatedAt: typeof value.updatedAt === 'number' && Number.isFinite(value.updatedAt) ? value.updatedAt : null,
    });
  }
  return sessions.sort((a, b) => (b.updatedAt ?? 0) - (a.updatedAt ?? 0) || a.key.localeCompare(b.key));
}

/** GET /api/rt/agents: every agent directory with the number of sessions its index lists. */
export async function listRuntimeAgents(deps: Pick<Deps, 'runtime'>) {
  const files = filesOf(deps);
  const ids = (await files.listAgentIds()).filter((id) => fileNameIdSchema.safeParse(id).success).sort();
  const agents = await Promise.all(
    ids.map(async (agentId) => {
      try {
        return { agentId, sessions: (await readSessionIndex(files, agentId))?.length ?? 0 };
      } catch (err) {
        if (err instanceof RuntimeCallError) return { agentId, sessions: 0, error: err.message };
        throw err;
      }
    }),
  );
  return { agents };
}

export const runtimeSessionsQuerySchema = z.strictObject({
  agent: agentParam,
  all: booleanParam,
  active: z
    .string()
    .regex(/^\d+(\.\d+)?$/, 'must be a number of minutes')
    .transform(Number)
    .pipe(z.number().positive('must be more than 0').max(5_256_000, 'at most ten years of minutes'))
    .optional(),
});

/** GET /api/rt/sessions?agent&all&active: newest first; `active` keeps sessions updated within that many minutes. */
export async function listRuntimeSessions(deps: Pick<Deps, 'runtime' | 'clock'>, query: unknown) {
  const q = parseQuery(runtimeSessionsQuerySchema, query);
  const files = filesOf(deps);
  const since = q.active === undefined ? undefined : deps.clock.now().getTime() - q.active * 60_000;
  const recent = (s: SessionMetadata) => since === undefined || (s.updatedAt ?? 0) >= since;
  if (q.all) {
    const ids = (await files.listAgentIds()).filter((id) => fileNameIdSchema.safeParse(id).success).sort();
    const perAgent = await Promise.all(
      ids.map(async (agentId) => ((await readSessionIndex(files, agentId)) ?? []).map((s) => ({ ...s, agentId }))),
    );
    const sessions = perAgent.flat().filter(recent).sort((a, b) => (b.updatedAt ?? 0) - (a.updatedAt ?? 0));
    return { sessions, total: sessions.length };
  }
  const index = await readSessionIndex(files, q.agent);
  if (!index) throw new NotFoundError(`Agent not found: ${q.agent} has no session index`);
  const sessions = index.filter(recent);
  return { agentId: q.agent, sessions, total: sessions.length };
}

// ---------------------------------------------------------------------------------------------
// Transcript scans

/** Calls `visit` for every line of the transcript, in order, without holding more than one line. */
export async function scan(transcript: TranscriptStream, visit: (lineNo: number, text: string) => void): Promise<number> {
  let n = 0;
  try {
    for await (const text of transcript.lines) visit(++n, text);
  } finally {
    transcript.close();
  }
  return n;
}

export async function openOr404(files: RuntimeStateFiles, agentId: string, sessionId: string): Promise<TranscriptStream> {
  const transcript = await files.openTranscript(agentId, sessionId);
  if (!transcript) throw new NotFoundError(SESSION_NOT_FOUND);
  return transcript;
}

/** Without copying the line (trim would): a long line is blank only if it has no visible character. */
export const isBlank = (text: string) => !/\S/.test(text);

/**
 * What replay needs to know about a whole transcript, built in one pass per file version and kept
 * by the adapter (issue 14): a page then reads only its own lines. The pairing lists keep what each
 * scan of the streaming reader below would have found, including its shortcuts (the detail view
 * skips lines whose text lacks `"toolCall"` or the result's id), so both answer byte for byte alike.
 */
interface ReplayIndex {
  /** A non-blank line is not JSON. */
  partial: boolean;
  lastNonBlankLine: number;
  /** Lines that call each tool call id (toolCallIdsOf), ascending. */
  callLines: LinesById;
  /** Of those, the lines whose text lacks `"toolCall"` (escaped in the JSON). */
  unplainCallLines: Set<number>;
  /** Lines that answer each id (toolResultIdOf), ascending. */
  resultLines: LinesById;
  /** Of those, the lines whose text lacks the id itself. */
  unplainResultLines: Set<number>;
  /** Reads lines from bytes while the index is built or grown. */
  scanner: ReplayLineScanner;
  /** The entries' tree (the released runtime's transcripts): which were rewound. */
  tree: TranscriptTree;
}

/** Lines per id, ascending; most ids are on one line, kept as the number itself rather than a list. */
type LinesById = Map<string, number | number[]>;

/** Adds line n to id's lines, unless it is already the last one. */
function addLine(lines: LinesById, id: string, n: number): void {
  const known = lines.get(id);
  if (known === undefined) lines.set(id, n);
  else if (typeof known === 'number') {
    if (known !== n) lines.set(id, [known, n]);
  } else if (known[known.length - 1] !== n) {
    known.push(n);
  }
}

function linesOf(lines: LinesById, id: string): readonly number[] | undefined {
  const known = lines.get(id);
  return typeof known === 'number' ? [known] : known;
}

function noteCalls(index: ReplayIndex, n: number, calls: readonly string[]): void {
  for (const id of calls) addLine(index.callLines, id, n);
}

const replayIndexer: TranscriptIndexer<ReplayIndex> = {
  name: 'replay',
  start: () => ({
    partial: false,
    lastNonBlankLine: 0,
    callLines: new Map(),
    unplainCallLines: new Set(),
    resultLines: new Map(),
    unplainResultLines: new Set(),
    scanner: new ReplayLineScanner(),
    tree: emptyTree(),
  }),
  visit(index, n, text) {
    if (isBlank(text)) return;
    index.lastNonBlankLine = n;
    const parsed = parseLine(text);
    if (!parsed.ok) {
      index.partial = true;
      return;
    }
    noteTreeEntry(index.tree, parsed);
    const calls = toolCallIdsOf(parsed);
    if (calls.length > 0 && !text.includes('"toolCall"')) index.unplainCallLines.add(n);
    noteCalls(index, n, calls);
    const answered = toolResultIdOf(parsed);
    if (answered !== undefined) {
      if (!text.includes(answered)) index.unplainResultLines.add(n);
      addLine(index.resultLines, answered, n);
    }
  },
  // ids read from bytes are written plainly, so the text holds `"toolCall"` and the id: never unplain
  visitBytes(index, n, bytes, start, end) {
    // a tree entry (it names its parentId) is read from its text, where its id and parent are parsed
    if (containsAscii(bytes, start, end, PARENT_ID_NAME)) return false;
    const facts = index.scanner.scan(bytes, start, end);
    if (!facts) return false;
    if (facts.blank) return true;
    index.lastNonBlankLine = n;
    noteCalls(index, n, facts.callIds);
    if (facts.resultId !== undefined) addLine(index.resultLines, facts.resultId, n);
    return true;
  },
};

const PARENT_ID_NAME = '"parentId"';

/** Whether bytes [start, end) hold the ASCII text `needle`. */
function containsAscii(bytes: Uint8Array, start: number, end: number, needle: string): boolean {
  const first = needle.charCodeAt(0);
  outer: for (let i = start; i <= end - needle.length; i++) {
    if (bytes[i] !== first) continue;
    for (let j = 1; j < needle.length; j++) if (bytes[i + j] !== needle.charCodeAt(j)) continue outer;
    return true;
  }
  return false;
}

/** Sets `rewound` on the events of tree entries: true off the kept branch. */
function markRewound<T extends { entryId?: string; rewound?: boolean }>(events: T[], tree: TranscriptTree): T[] {
  for (const event of events) if (event.entryId !== undefined) event.rewound = isRewound(tree, event.entryId);
  return events;
}

/** The first line of an ascending list after `after` that `keep` accepts, or null. */
function firstAfter(lines: readonly number[] | undefined, after: number, keep: (line: number) => boolean = () => true): number | null {
  if (!lines) return null;
  let lo = 0;
  let hi = lines.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (lines[mid]! <= after) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < lines.length; i++) if (keep(lines[i]!)) return lines[i]!;
  return null;
}

/** The transcript's index when the adapter keeps one, else undefined (the streaming reader answers). */
async function indexedOr404(files: RuntimeStateFiles, agentId: string, sessionId: string): Promise<IndexedTranscript<ReplayIndex> | undefined> {
  if (!files.indexTranscript) return undefined;
  const indexed = await files.indexTranscript(agentId, sessionId, replayIndexer);
  if (!indexed) throw new NotFoundError(SESSION_NOT_FOUND);
  return indexed;
}

/**
 * A page of events from the index: the lines after afterLine are read in growing batches until the
 * page holds `limit` events (whole lines). Pairing as the streaming reader finds it: a result on the
 * page pairs with the first call before it (by toolCallIdsOf up to afterLine, by the page's events
 * after); a call on the page with the first result after it (by the page's events on the page, by
 * toolResultIdOf after the page).
 */
async function indexedEventsPage(indexed: IndexedTranscript<ReplayIndex>, afterLine: number, limit: number) {
  const index = indexed.state;
  const events: ReplayEvent[] = [];
  const pageCalls: Array<{ call: ToolCallInfo; line: number }> = [];
  const pageFirstCall = new Map<string, number>();
  const pageResults = new Map<string, number[]>();
  let lastPageLine = 0;
  let hasMore = false;
  let next = afterLine + 1;
  let batch = Math.max(64, limit);
  reading: while (next <= indexed.totalLines) {
    const lines = await indexed.readLines(next, next + batch - 1);
    if (lines.length === 0) break;
    for (const text of lines) {
      const n = next++;
      if (isBlank(text)) continue;
      if (events.length >= limit) {
        hasMore = true;
        break reading;
      }
      lastPageLine = n;
      for (const event of eventsOfLine(n, parseLine(text))) {
        events.push(event);
        if (event.kind === 'tool_call') {
          const call = event.tool as ToolCallInfo;
          if (call.toolCallId) {
            pageCalls.push({ call, line: n });
            if (!pageFirstCall.has(call.toolCallId)) pageFirstCall.set(call.toolCallId, n);
          }
        } else if (event.kind === 'tool_result') {
          const result = event.tool as ToolResultInfo;
          if (result.toolCallId) {
            const before = linesOf(index.callLines, result.toolCallId)?.[0];
            const fromIndex = before !== undefined && before <= afterLine ? before : null;
            const fromPage = pageFirstCall.get(result.toolCallId) ?? null;
            result.callLine = fromIndex ?? fromPage;
            const seen = pageResults.get(result.toolCallId);
            if (seen) seen.push(n);
            else pageResults.set(result.toolCallId, [n]);
          }
        }
      }
    }
    batch *= 2;
  }
  for (const { call, line } of pageCalls) {
    const id = call.toolCallId!;
    call.resultLine = firstAfter(pageResults.get(id), line) ?? firstAfter(linesOf(index.resultLines, id), Math.max(line, lastPageLine));
  }
  return { events, lastPageLine, hasMore };
}

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

const detailLine = z.string().regex(/^\d+$/, 'Invalid line number').transform(Number).pipe(z.number().min(1, 'Invalid line number').max(Number.MAX_SAFE_INTEGER, 'Invalid line number'));
export const sessionEventDetailQuerySchema = z.strictObject({ agent: agentParam });

/**
 * GET /api/rt/sessions/:sessionId/events/:line: the line's events with full bodies, its tool pairing,
 * and the raw parsed line as `source`. 400 "Invalid line number", 404 "Session not found" or "Event not found".
 */
export async function sessionEventDetail(deps: Pick<Deps, 'runtime'>, rawSessionId: unknown, rawLine: unknown, query: unknown) {
  const sessionId = parseSessionId(rawSessionId);
  const lineCheck = detailLine.safeParse(rawLine);
  if (!lineCheck.success) throw new ValidationError('Invalid line number', [{ path: 'line', message: 'must be a whole number of 1 or more' }]);
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
        if (event.kind === 'tool_call' && (event.tool as ToolCallInfo).toolCallId) awaiting.set((event.tool as ToolCallInfo).toolCallId!, event.tool as ToolCallInfo);
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

/** The detail view from the index: the line is read alone; its pairing comes from the index's lists. */
async function indexedEventDetail(indexed: IndexedTranscript<ReplayIndex>, sessionId: string, agentId: string, line: number) {
  const index = indexed.state;
  const totalLines = indexed.totalLines;
  const [text] = await indexed.readLines(line, line);
  const target = text === undefined || isBlank(text) ? undefined : parseLine(text);
  const events = target ? eventsOfLine(line, target, null) : [];
  if (!target || events.length === 0) throw new NotFoundError('Event not found', { line, totalLines });
  // as the scan: one awaiting call per id (the last block that names it)
  const awaiting = new Map<string, ToolCallInfo>();
  for (const event of events) {
    if (event.kind === 'tool_call' && (event.tool as ToolCallInfo).toolCallId) awaiting.set((event.tool as ToolCallInfo).toolCallId!, event.tool as ToolCallInfo);
    if (event.kind === 'tool_result') {
      const result = event.tool as ToolResultInfo;
      const first = result.toolCallId ? firstAfter(linesOf(index.callLines, result.toolCallId), 0, (n) => !index.unplainCallLines.has(n)) : null;
      result.callLine = first !== null && first < line ? first : null;
    }
  }
  for (const [id, call] of awaiting) call.resultLine = firstAfter(linesOf(index.resultLines, id), line, (n) => !index.unplainResultLines.has(n));
  const [event, ...extraEvents] = markRewound(events, index.tree);
  return { sessionId, agentId, line, found: true, event, extraEvents, source: target.ok ? target.value : target.text, totalLines, truncated: indexed.truncated };
}

// ---------------------------------------------------------------------------------------------
// Message views

interface MessageEntry {
  line: number;
  type: string;
  message: { role: unknown; content: unknown } | null;
  timestamp?: unknown;
  data?: unknown;
  raw?: string;
  /** As ReplayEvent: the released runtime's tree, and what it recorded about an assistant message. */
  entryId?: string;
  parentId?: string | null;
  rewound?: boolean;
  assistant?: AssistantMessageInfo;
  /** A turn that ended before a reply (run-failed-before-reply), shown as a failed assistant message. */
  failedTurn?: { runId: string | null; error: string | null };
}

/** A line as a message-view entry; undefined when `messagesOnly` and the line is not a message. */
function messageEntry(n: number, parsed: ParsedLine, messagesOnly: boolean): MessageEntry | undefined {
  const entry = messageEntryOf(n, parsed, messagesOnly);
  const place = entry && treePlaceOf(parsed);
  return place ? { ...entry, entryId: place.id, parentId: place.parentId } : entry;
}

function messageEntryOf(n: number, parsed: ParsedLine, messagesOnly: boolean): MessageEntry | undefined {
  if (!parsed.ok) return messagesOnly ? undefined : { line: n, type: 'invalid', message: null, raw: parsed.text.slice(0, 400) };
  const value = parsed.value;
  const type = isRecord(value) && typeof value.type === 'string' ? value.type : 'unknown';
  const message = isRecord(value) && type === 'message' && isRecord(value.message) ? value.message : undefined;
  if (message) {
    const assistant = message.role === 'assistant' ? assistantInfoOf(message) : undefined;
    return { line: n, type, timestamp: (value as Record<string, unknown>).timestamp ?? null, message: { role: message.role ?? null, content: message.content ?? null }, ...(assistant ? { assistant } : {}) };
  }
  if (isRecord(value) && type === 'custom_message' && value.customType === 'run-failed-before-reply') {
    const details = isRecord(value.details) ? value.details : {};
    return {
      line: n,
      type,
      timestamp: value.timestamp ?? null,
      message: { role: 'assistant', content: value.content ?? null },
      failedTurn: { runId: typeof details.runId === 'string' ? details.runId : null, error: typeof details.error === 'string' ? details.error : null },
    };
  }
  if (messagesOnly) return undefined;
  return { line: n, type, message: null, data: value };
}

const messagesQuery = z.strictObject({
  agent: agentParam,
  after: lineCursor,
  limit: cappedCount(MESSAGES_DEFAULT_LIMIT, MESSAGES_MAX_LIMIT),
  filter: z.enum(['messages', 'all']).default('messages'),
});

/** GET /api/rt/sessions/:sessionId/messages?agent&after&limit&filter: message entries after a line, oldest first. */
export async function sessionMessages(deps: Pick<Deps, 'runtime'>, rawSessionId: unknown, query: unknown) {
  const sessionId = parseSessionId(rawSessionId);
  const q = parseQuery(messagesQuery, query);
  const transcript = await openOr404(filesOf(deps), q.agent, sessionId);
  const messages: MessageEntry[] = [];
  let hasMore = false;
  const tree = emptyTree();
  await scan(transcript, (n, text) => {
    if (text.includes(PARENT_ID_NAME)) noteTreeEntry(tree, parseLine(text));
    if (n <= q.after || hasMore || isBlank(text)) return;
    const full = messages.length >= q.limit;
    if (full && q.filter === 'all') {
      hasMore = true;
      return;
    }
    if (full && !text.includes('"message"') && !text.includes('run-failed-before-reply')) return;
    const entry = messageEntry(n, parseLine(text), q.filter === 'messages');
    if (!entry) return;
    if (full) hasMore = true;
    else messages.push(entry);
  });
  return { sessionId, messages: markRewound(messages, tree), nextCursor: hasMore ? messages.at(-1)!.line : null, hasMore };
}

const detailSessionQuery = z.strictObject({ agent: agentParam, messages: cappedCount(DETAIL_DEFAULT_MESSAGES, MESSAGES_MAX_LIMIT) });

/**
 * GET /api/rt/sessions/:sessionId?agent&messages: the index metadata plus the last `messages`
 * message entries (kept in a ring while streaming, never the whole transcript).
 * 404 "Session not found" when neither the index nor the transcript knows the session.
 */
export async function sessionDetail(deps: Pick<Deps, 'runtime'>, rawSessionId: unknown, query: unknown) {
  const sessionId = parseSessionId(rawSessionId);
  const q = parseQuery(detailSessionQuery, query);
  const files = filesOf(deps);
  const indexed = (await readSessionIndex(files, q.agent))?.find((s) => s.sessionId === sessionId);
  const transcript = await files.openTranscript(q.agent, sessionId);
  if (!indexed && !transcript) throw new NotFoundError(SESSION_NOT_FOUND);
  const metadata = indexed ?? { sessionId, key: null, kind: null, channel: null, icon: null, status: null, updatedAt: null };
  const last: MessageEntry[] = [];
  let seen = 0;
  let partial = false;
  const tree = emptyTree();
  const totalLines = transcript
    ? await scan(transcript, (n, text) => {
        if (isBlank(text)) return;
        const parsed = parseLine(text);
        if (!parsed.ok) partial = true;
        noteTreeEntry(tree, parsed);
        const entry = messageEntry(n, parsed, true);
        if (!entry) return;
        seen++;
        last.push(entry);
        if (last.length > q.messages) last.shift();
      })
    : 0;
  return {
    ...metadata,
    agentId: q.agent,
    messages: markRewound(last, tree),
    totalLines,
    hasOlder: seen > last.length,
    oldestLine: last[0]?.line ?? null,
    partial,
    truncated: transcript?.truncated ?? false,
    transcriptAvailable: transcript !== undefined,
  };
}
