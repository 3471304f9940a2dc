import { NotFoundError } from '../errors';
import type { IndexedTranscript, RuntimeStateFiles, TranscriptIndexer } from '../ports/runtime';
import { ReplayLineScanner } from './replay-line-scan';
import { eventsOfLine, parseLine, toolCallIdsOf, toolResultIdOf, type ReplayEvent, type ToolCallInfo, type ToolResultInfo } from './replay';
import { emptyTree, markRewound, noteTreeEntry, PARENT_ID_NAME, type TranscriptTree } from './transcript-tree';
import { SESSION_NOT_FOUND, isBlank, scan } from './session-reader';

/**
 * The replay index of a transcript (what a page of events or an event's detail needs, built once per
 * file version by the adapter) and the pages and details answered from it.
 */
/**
 * What replay needs to know about a whole transcript, built in one pass per file version and kept
 * by the adapter: a page then reads only its own lines. The pairing lists keep what each
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
export async function indexedOr404(
  files: RuntimeStateFiles,
  agentId: string,
  sessionId: string,
): Promise<IndexedTranscript<ReplayIndex> | undefined> {
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
export async function indexedEventsPage(indexed: IndexedTranscript<ReplayIndex>, afterLine: number, limit: number) {
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

/** The detail view from the index: the line is read alone; its pairing comes from the index's lists. */
export async function indexedEventDetail(indexed: IndexedTranscript<ReplayIndex>, sessionId: string, agentId: string, line: number) {
  const index = indexed.state;
  const totalLines = indexed.totalLines;
  const [text] = await indexed.readLines(line, line);
  const target = text === undefined || isBlank(text) ? undefined : parseLine(text);
  const events = target ? eventsOfLine(line, target, null) : [];
  if (!target || events.length === 0) throw new NotFoundError('Event not found', { line, totalLines });
  // as the scan: one awaiting call per id (the last block that names it)
  const awaiting = new Map<string, ToolCallInfo>();
  for (const event of events) {
    if (event.kind === 'tool_call' && (event.tool as ToolCallInfo).toolCallId)
      awaiting.set((event.tool as ToolCallInfo).toolCallId!, event.tool as ToolCallInfo);
    if (event.kind === 'tool_result') {
      const result = event.tool as ToolResultInfo;
      const first = result.toolCallId
        ? firstAfter(linesOf(index.callLines, result.toolCallId), 0, (n) => !index.unplainCallLines.has(n))
        : null;
      result.callLine = first !== null && first < line ? first : null;
    }
  }
  for (const [id, call] of awaiting)
    call.resultLine = firstAfter(linesOf(index.resultLines, id), line, (n) => !index.unplainResultLines.has(n));
  const [event, ...extraEvents] = markRewound(events, index.tree);
  return {
    sessionId,
    agentId,
    line,
    found: true,
    event,
    extraEvents,
    source: target.ok ? target.value : target.text,
    totalLines,
    truncated: indexed.truncated,
  };
}

// ---------------------------------------------------------------------------------------------
// Message views
