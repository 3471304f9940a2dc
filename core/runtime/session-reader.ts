import * as z from 'zod';
import { parseQuery } from '../query-params';
import { NotFoundError, RuntimeCallError } from '../errors';
import type { Deps } from '../ports';
import type { RuntimeStateFiles, TranscriptStream } from '../ports/runtime';
import { fileNameIdSchema, parseSessionId, parseSessionKey } from './ids';
import { isRecord } from './payload';
import { assistantInfoOf, parseLine, type AssistantMessageInfo, type ParsedLine, type ReplayEvent } from './replay';
import { emptyTree, markRewound, noteTreeEntry, PARENT_ID_NAME, treePlaceOf } from './transcript-tree';

/** Spec 01 "Agent-runtime session reader" limits. */
export const EVENTS_DEFAULT_LIMIT = 500;
export const EVENTS_MAX_LIMIT = 2000;
export const MESSAGES_DEFAULT_LIMIT = 50;
export const DETAIL_DEFAULT_MESSAGES = 30;
/** Spec silent: message pages and the detail's message count are capped like events are. */
export const MESSAGES_MAX_LIMIT = 500;

export const SESSION_NOT_FOUND = 'Session not found';

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
export const lineCursor = z
  .string()
  .regex(/^\d+$/, 'must be a whole number of 0 or more')
  .transform(Number)
  .pipe(z.number().max(Number.MAX_SAFE_INTEGER, 'too large'))
  .default(0);
export const agentParam = fileNameIdSchema.default('main');
const booleanParam = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1')
  .default(false);

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
    const sessions = perAgent
      .flat()
      .filter(recent)
      .sort((a, b) => (b.updatedAt ?? 0) - (a.updatedAt ?? 0));
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
    return {
      line: n,
      type,
      timestamp: (value as Record<string, unknown>).timestamp ?? null,
      message: { role: message.role ?? null, content: message.content ?? null },
      ...(assistant ? { assistant } : {}),
    };
  }
  if (isRecord(value) && type === 'custom_message' && value.customType === 'run-failed-before-reply') {
    const details = isRecord(value.details) ? value.details : {};
    return {
      line: n,
      type,
      timestamp: value.timestamp ?? null,
      message: { role: 'assistant', content: value.content ?? null },
      failedTurn: {
        runId: typeof details.runId === 'string' ? details.runId : null,
        error: typeof details.error === 'string' ? details.error : null,
      },
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
