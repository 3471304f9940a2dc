import * as z from 'zod';
import type { Deps } from '../ports';
import { parseQuery } from '../query-params';
import { parseSessionId } from './ids';
import { eventsOfLine, parseLine, replayEventKinds, type ReplayEvent, type ToolCallInfo, type ToolResultInfo } from './replay';
import { agentParam, cappedCount, filesOf, isBlank, lineCursor, openOr404, scan } from './session-reader';

/** Matches a search page holds by default, and at most. */
export const SEARCH_DEFAULT_LIMIT = 100;
export const SEARCH_MAX_LIMIT = 500;
/** A match's snippet: this many characters of its text before the first occurrence, and after its start. */
const SNIPPET_BEFORE = 40;
const SNIPPET_AFTER = 120;

/** GET /api/rt/sessions/:sessionId/search?agent&q&afterLine&limit (the OpenAPI document reads it too). */
export const sessionSearchQuerySchema = z.strictObject({
  agent: agentParam,
  q: z.string().trim().min(1, 'must not be empty').max(200, 'at most 200 characters'),
  afterLine: lineCursor,
  limit: cappedCount(SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT),
});

/** One event whose text holds the needle; `snippet` is its text around the first occurrence (SNIPPET_BEFORE + SNIPPET_AFTER characters). */
export const sessionSearchMatchSchema = z.object({
  line: z.number().int(),
  block: z.number().int(),
  kind: z.enum(replayEventKinds),
  role: z.string().nullable(),
  snippet: z.string(),
});
export type SessionSearchMatch = z.infer<typeof sessionSearchMatchSchema>;

/** The answer of GET /api/rt/sessions/:sessionId/search. */
export const sessionSearchSchema = z.object({
  sessionId: z.string(),
  agentId: z.string(),
  q: z.string(),
  matches: z.array(sessionSearchMatchSchema),
  nextAfterLine: z.number().int(),
  hasMore: z.boolean(),
  truncated: z.boolean(),
});

/** What a reader sees of an event, full length: the text, or the tool's name with its arguments or result. */
function shownText(event: ReplayEvent): string {
  const parts: string[] = [];
  if (event.preview) parts.push(event.preview);
  if (event.kind === 'tool_call') {
    const call = event.tool as ToolCallInfo;
    parts.push(call.name ?? '', call.argsPreview);
  } else if (event.kind === 'tool_result') {
    const result = event.tool as ToolResultInfo;
    parts.push(result.name ?? '', result.resultPreview);
  } else if (event.model) {
    parts.push(event.model.provider ?? '', event.model.modelId ?? '');
  }
  return parts.filter(Boolean).join('\n');
}

function snippetOf(text: string, at: number): string {
  const start = Math.max(0, at - SNIPPET_BEFORE);
  const end = Math.min(text.length, at + SNIPPET_AFTER);
  return `${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`;
}

/**
 * A line's raw JSON holds the words its text shows unless JSON escaped them: a quote, a backslash,
 * a slash or a control character is written escaped, and any character may be written `\uXXXX`.
 * For a needle without the first kind, a line without `\u` that lacks the needle cannot match, and
 * is not parsed.
 */
const escapableInJson = /["\\/\u0000-\u001f]/;

/**
 * GET /api/rt/sessions/:sessionId/search: the events after `afterLine` whose text (as the viewer
 * shows it, whole, not the page's 400-character previews) holds `q`, case-insensitively, oldest
 * first, `limit` at most (whole lines: a line's matches are never split between pages). Steps:
 * 1. validate; 2. open the transcript (404 when absent); 3. read its lines once, in order, parsing
 * only lines whose raw text may hold the needle; 4. stop at the first matching line beyond the page
 * (`hasMore`; `nextAfterLine` is then the page's last matching line, else the last line read).
 */
export async function searchSession(
  deps: Pick<Deps, 'runtime'>,
  rawSessionId: unknown,
  query: unknown,
): Promise<z.infer<typeof sessionSearchSchema>> {
  const sessionId = parseSessionId(rawSessionId);
  const q = parseQuery(sessionSearchQuerySchema, query);
  const needle = q.q.toLowerCase();
  const rawPrefilter = !escapableInJson.test(needle);
  const transcript = await openOr404(filesOf(deps), q.agent, sessionId);
  const matches: SessionSearchMatch[] = [];
  let hasMore = false;
  let lastRead = q.afterLine;
  const done = new Error('page full');
  try {
    await scan(transcript, (n, text) => {
      if (n <= q.afterLine) return;
      lastRead = n;
      if (isBlank(text)) return;
      if (rawPrefilter && !text.includes('\\u') && !text.toLowerCase().includes(needle)) return;
      const found: SessionSearchMatch[] = [];
      for (const event of eventsOfLine(n, parseLine(text), null)) {
        const shown = shownText(event);
        const at = shown.toLowerCase().indexOf(needle);
        if (at >= 0) found.push({ line: n, block: event.block, kind: event.kind, role: event.role, snippet: snippetOf(shown, at) });
      }
      if (found.length === 0) return;
      // whole lines: a full page takes no further line, and a line's matches stay together
      if (matches.length >= q.limit) {
        hasMore = true;
        throw done;
      }
      matches.push(...found);
    });
  } catch (err) {
    if (err !== done) throw err;
  }
  return {
    sessionId,
    agentId: q.agent,
    q: q.q,
    matches,
    nextAfterLine: hasMore ? matches.at(-1)!.line : lastRead,
    hasMore,
    truncated: transcript.truncated,
  };
}
