import { signal } from '@preact/signals';
import { createParser } from 'eventsource-parser';
import type { operations } from '../../mcp/task-server-paths';
import { api, apiBase, expectData } from './api';
import { authorizationHeader, sessionRefused } from './session';

/**
 * A runtime session's transcript as the console reads it, from the session reader
 * (docs/api-choices.md, "Session reader"): the session's entry in the runtime's indexes, its events a
 * page of lines at a time (never the whole transcript), one event's full text, a search over the
 * whole session, and the live tail of new lines (docs/events.md). TranscriptLines keeps the lines
 * read so far for the viewer (parts/transcript.tsx) and the session page's header.
 */

/** An event of GET /api/rt/sessions/:sessionId/events (core/runtime/replay.ts ReplayEvent; the OpenAPI document leaves it open). */
export interface TranscriptEvent {
  line: number;
  block: number;
  kind: 'session_meta' | 'model_change' | 'user_message' | 'assistant_thinking' | 'tool_call' | 'tool_result' | 'compaction' | 'other';
  type: string;
  role: string | null;
  timestamp: string | null;
  preview: string | null;
  clipped: boolean;
  tool?: {
    toolCallId: string | null;
    name: string | null;
    argsPreview?: string;
    resultPreview?: string;
    resultLine?: number | null;
    callLine?: number | null;
  };
  isError?: boolean;
  model?: { provider: string | null; modelId: string | null };
  meta?: { id: string | null; cwd: string | null };
  rewound?: boolean;
  assistant?: { provider: string | null; model: string | null; cost: Record<string, unknown> | null };
  failedTurn?: { runId: string | null; error: string | null };
}

/** A session as the runtime's indexes list it (GET /api/rt/sessions?all=true). */
export interface SessionEntry {
  sessionId: string;
  agentId: string;
  key: string | null;
  kind: string | null;
  channel: string | null;
  status: string | null;
  updatedAt: number | null;
}

export type SearchAnswer = operations['rtSearchSession']['responses'][200]['content']['application/json'];
export type SearchMatch = SearchAnswer['matches'][number];

/** The viewer reads lines in pages of this many, asking for EVENTS_PER_READ events (most lines hold one to three). */
export const LINES_PER_READ = 100;
export const EVENTS_PER_READ = 200;

/**
 * The session's entry and its agent: the reader's routes take the agent, and a session id alone
 * names the session across agents. A run names its session by key (`agent:<agent>:…`, what
 * workflow runs keep), so a key finds the entry too. A session no index lists is read as agent
 * main's (the reader's default), whose transcript may still be there.
 */
export async function findSession(sessionIdOrKey: string): Promise<SessionEntry> {
  const answer = await expectData(api().GET('/api/rt/sessions', { params: { query: { all: 'true' } } }));
  const sessions = answer.sessions as unknown as SessionEntry[];
  const found = sessions.find((s) => s.sessionId === sessionIdOrKey) ?? sessions.find((s) => s.key === sessionIdOrKey);
  return found ?? { sessionId: sessionIdOrKey, agentId: 'main', key: null, kind: null, channel: null, status: null, updatedAt: null };
}

const sessionPath = (sessionId: string) => ({ sessionId });

export async function loadEvents(agentId: string, sessionId: string, afterLine: number, limit: number) {
  const page = await expectData(
    api().GET('/api/rt/sessions/{sessionId}/events', {
      params: { path: sessionPath(sessionId), query: { agent: agentId, afterLine: String(afterLine), limit: String(limit) } },
    }),
  );
  return { ...page, events: page.events as unknown as TranscriptEvent[] };
}

/** A line's events with their whole text (the page's previews stop at 400 characters). */
export async function loadLine(agentId: string, sessionId: string, line: number): Promise<TranscriptEvent[]> {
  const detail = await expectData(
    api().GET('/api/rt/sessions/{sessionId}/events/{line}', {
      params: { path: { sessionId, line: String(line) }, query: { agent: agentId } },
    }),
  );
  return [detail.event, ...detail.extraEvents] as TranscriptEvent[];
}

export function searchTranscript(agentId: string, sessionId: string, q: string, afterLine = 0): Promise<SearchAnswer> {
  return expectData(
    api().GET('/api/rt/sessions/{sessionId}/search', {
      params: { path: sessionPath(sessionId), query: { agent: agentId, q, afterLine: String(afterLine) } },
    }),
  );
}

/**
 * Follows the session's new lines through its live tail (GET /api/rt/sessions/:sessionId/tail),
 * read with fetch and a stream parser so the token stays in the Authorization header. Each line's
 * events arrive together; `onEvent` gets each. Reconnects after a drop (from the last line
 * received) until `signal` aborts; a 404 (the transcript went away) ends it. `onOpen` says whether a
 * tail is open right now: the viewer says it follows new lines only while one is.
 */
export async function followTail(
  agentId: string,
  sessionId: string,
  afterLine: () => number,
  onEvent: (event: TranscriptEvent) => void,
  signal: AbortSignal,
  onOpen: (open: boolean) => void = () => undefined,
): Promise<void> {
  let failures = 0;
  while (!signal.aborted) {
    try {
      const url = `${apiBase()}/api/rt/sessions/${encodeURIComponent(sessionId)}/tail?agent=${encodeURIComponent(agentId)}&afterLine=${afterLine()}`;
      const response = await fetch(url, { headers: { accept: 'text/event-stream', ...authorizationHeader() }, signal, cache: 'no-store' });
      if (response.status === 401) sessionRefused();
      if (response.status === 401 || response.status === 404 || response.status === 400) return;
      if (!response.ok || !response.body) throw new Error(`the tail answered ${response.status}`);
      failures = 0;
      onOpen(true);
      const parser = createParser({
        onEvent(frame) {
          if (frame.event === 'transcript') onEvent(JSON.parse(frame.data) as TranscriptEvent);
        },
      });
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(value);
      }
    } catch {
      // dropped or refused (503 beyond the server's tails): tried again below
    } finally {
      // an aborted tail's end is its viewer's to report (a tail opened after it may be open already)
      if (!signal.aborted) onOpen(false);
    }
    if (signal.aborted) return;
    failures++;
    await new Promise((resolve) => setTimeout(resolve, Math.min(10_000, 500 * 2 ** Math.min(failures, 5))));
  }
}

/**
 * The lines of one transcript read so far, by line number (an empty list: a blank line, or one with
 * no event), with the number of lines the transcript has. Lines are read a page at a time around
 * what the viewer shows; `version` changes whenever a line arrives, so the viewer redraws.
 */
export class TranscriptLines {
  readonly session = signal<SessionEntry | undefined>(undefined);
  readonly problem = signal<string | undefined>(undefined);
  readonly totalLines = signal(0);
  readonly version = signal(0);
  /** The first page has arrived (or failed): the viewer knows how many lines there are. */
  readonly opened = signal(false);
  private readonly lines = new Map<number, TranscriptEvent[]>();
  /** Pages by their first line's predecessor (afterLine), read or being read. */
  private readonly reads = new Map<number, Promise<void>>();
  private readonly agent: Promise<SessionEntry>;

  constructor(sessionIdOrKey: string) {
    this.agent = findSession(sessionIdOrKey).then((entry) => {
      this.session.value = entry;
      return entry;
    });
    this.agent.catch((err: Error) => (this.problem.value = err.message));
    void this.read(0).finally(() => (this.opened.value = true));
  }

  /** The session's agent and transcript id, once its entry is found (the viewer may have been given its key). */
  get found(): { agentId: string; sessionId: string } | undefined {
    const entry = this.session.value;
    return entry && { agentId: entry.agentId, sessionId: entry.sessionId };
  }

  eventsOf(line: number): TranscriptEvent[] | undefined {
    return this.lines.get(line);
  }

  /** The first events of a kind among the lines read (the session page's header: when it started, on which model). */
  first(kind: TranscriptEvent['kind']): TranscriptEvent | undefined {
    for (let line = 1; line <= Math.min(this.totalLines.value, LINES_PER_READ); line++) {
      const found = this.lines.get(line)?.find((e) => e.kind === kind || (kind === 'model_change' && e.assistant?.model));
      if (found) return found;
    }
    return undefined;
  }

  /** Reads the pages that hold lines `from`..`to` that are not read yet. */
  ensure(from: number, to: number): Promise<void> {
    const pages: Promise<void>[] = [];
    for (let start = Math.floor((Math.max(1, from) - 1) / LINES_PER_READ) * LINES_PER_READ; start < to; start += LINES_PER_READ) {
      if (!this.known(start + 1, Math.min(start + LINES_PER_READ, this.totalLines.value))) pages.push(this.read(start));
    }
    return Promise.all(pages).then(() => undefined);
  }

  /** Whether every line of from..to has been read (a page read before may have brought them). */
  private known(from: number, to: number): boolean {
    if (to < from) return false;
    for (let line = from; line <= to; line++) if (!this.lines.has(line)) return false;
    return true;
  }

  /** Reads the lines after `afterLine` up to the page's end (LINES_PER_READ lines) and what the answers bring beyond it, each page once. */
  private read(afterLine: number): Promise<void> {
    let reading = this.reads.get(afterLine);
    if (!reading) {
      reading = this.readPage(afterLine).catch((err: Error) => {
        this.reads.delete(afterLine);
        this.problem.value = err.message;
      });
      this.reads.set(afterLine, reading);
    }
    return reading;
  }

  private async readPage(afterLine: number): Promise<void> {
    const { agentId, sessionId } = await this.agent;
    const end = afterLine + LINES_PER_READ;
    let cursor = afterLine;
    for (;;) {
      const page = await loadEvents(agentId, sessionId, cursor, EVENTS_PER_READ);
      // whole lines: every line up to the page's last is read (those without events are blank)
      const upTo = page.hasMore ? page.nextAfterLine : Math.max(page.nextAfterLine, page.totalLines);
      const byLine = new Map<number, TranscriptEvent[]>();
      for (const event of page.events) {
        const list = byLine.get(event.line);
        if (list) list.push(event);
        else byLine.set(event.line, [event]);
      }
      // a line the tail has already brought keeps its events
      for (let line = cursor + 1; line <= upTo; line++) if (!this.lines.has(line)) this.lines.set(line, byLine.get(line) ?? []);
      if (page.totalLines > this.totalLines.value) this.totalLines.value = page.totalLines;
      this.version.value++;
      if (!page.hasMore || upTo >= end || page.nextAfterLine <= cursor) return;
      cursor = page.nextAfterLine;
    }
  }

  /** Replaces a line's events (its whole text, read with loadLine). */
  setLine(line: number, events: TranscriptEvent[]): void {
    this.lines.set(line, events);
    this.version.value++;
  }

  /** An event the live tail sent: its line joins the transcript (the lines it skipped are blank). */
  addLive(event: TranscriptEvent): void {
    const known = this.lines.get(event.line);
    if (event.line > this.totalLines.value || !known) {
      for (let line = this.totalLines.value + 1; line < event.line; line++) if (!this.lines.has(line)) this.lines.set(line, []);
      this.lines.set(event.line, [event]);
    } else if (!known.some((e) => e.block === event.block)) {
      known.push(event);
    }
    if (event.line > this.totalLines.value) this.totalLines.value = event.line;
    this.version.value++;
  }

  /** The line the live tail starts after: every line before it is known or readable by page. */
  tailCursor(): number {
    return this.totalLines.value;
  }
}

/** The transcripts open in this page, by session id (the session page's header and its viewer share one). */
const open = new Map<string, TranscriptLines>();
const KEPT = 4;

export function transcriptLines(sessionId: string): TranscriptLines {
  let lines = open.get(sessionId);
  open.delete(sessionId);
  // a transcript that could not be read is read anew when it is opened again
  if (!lines || lines.problem.value !== undefined) lines = new TranscriptLines(sessionId);
  open.set(sessionId, lines);
  for (const old of open.keys()) if (open.size > KEPT) open.delete(old);
  return lines;
}
