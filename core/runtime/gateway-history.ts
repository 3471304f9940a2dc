import { isRecord } from './payload';

/*
 * The released runtime's gateway serves a session's history as its display messages
 * (`GET /sessions/:sessionKey/history`: `{sessionKey, messages: [...]}`), not as the transcript's rows:
 * the kept branch only, without the session header, the `model-snapshot` entries or the entries'
 * `parentId`, each message with the runtime's own facts under `__openclaw` (`id`, `runId`, `seq`).
 * These functions turn that answer into transcript lines of docs/runtime-contract.md, so that the
 * session reader replays it as it replays a transcript file (core/runtime/replay.ts).
 */

/** What the runtime writes before the error text of a turn that ended before a reply. */
const FAILED_TURN_PREFIX = 'This turn ended before a reply: ';

const isoOf = (ms: unknown): string | null =>
  typeof ms === 'number' && Number.isFinite(ms) ? new Date(ms).toISOString() : typeof ms === 'string' ? ms : null;
const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);

/**
 * The transcript lines of a history answer's messages, in order. The first line is the session
 * header (the session's id); a `model-snapshot` line is written before an assistant message whose
 * provider or model differs from the one before it, since the history leaves the runtime's own
 * snapshots out; a `run-failed-before-reply` message becomes the `custom_message` the transcript
 * holds, its run id from `__openclaw.runId` and its error from the text after the runtime's prefix.
 * Anything that is not an object is left out.
 */
export function transcriptLinesOfHistory(sessionId: string, messages: readonly unknown[]): string[] {
  const lines = [JSON.stringify({ type: 'session', id: sessionId, timestamp: null })];
  let model: string | undefined;
  for (const message of messages) {
    if (!isRecord(message)) continue;
    const { __openclaw: metaValue, ...rest } = message;
    const meta = isRecord(metaValue) ? metaValue : {};
    const id = str(meta.id);
    const timestamp = isoOf(message.timestamp);
    if (message.role === 'custom') {
      const content = message.content;
      const failed = message.customType === 'run-failed-before-reply';
      const text = typeof content === 'string' ? content : '';
      const details = isRecord(message.details)
        ? message.details
        : failed
          ? { runId: str(meta.runId), error: text.startsWith(FAILED_TURN_PREFIX) ? text.slice(FAILED_TURN_PREFIX.length) : str(text) }
          : undefined;
      lines.push(
        JSON.stringify({
          type: 'custom_message',
          customType: message.customType ?? null,
          content,
          ...(details ? { details } : {}),
          id,
          timestamp,
        }),
      );
      continue;
    }
    if (message.role === 'assistant' && (typeof message.provider === 'string' || typeof message.model === 'string')) {
      const current = `${message.provider ?? ''}/${message.model ?? ''}`;
      if (current !== model) {
        lines.push(
          JSON.stringify({
            type: 'custom',
            customType: 'model-snapshot',
            data: { provider: str(message.provider), modelId: str(message.model) },
            timestamp,
          }),
        );
        model = current;
      }
    }
    lines.push(JSON.stringify({ type: 'message', id, timestamp, message: rest }));
  }
  return lines;
}

/** One row of the gateway's session list (the `sessions_list` tool's `details.sessions[]`). */
export interface GatewaySessionRow {
  key: string;
  sessionId: string;
  agentId: string | null;
  kind: string | null;
  channel: string | null;
  status: string | null;
  updatedAt: number | null;
}

/** The rows of a `sessions_list` answer that name a key and a session id; the rest cannot be read. */
export function gatewaySessionRows(
  details: unknown,
): { rows: GatewaySessionRow[]; hasMore: boolean; nextOffset: number | null } | undefined {
  if (!isRecord(details) || !Array.isArray(details.sessions)) return undefined;
  const rows: GatewaySessionRow[] = [];
  for (const row of details.sessions) {
    if (!isRecord(row) || typeof row.key !== 'string' || typeof row.sessionId !== 'string') continue;
    rows.push({
      key: row.key,
      sessionId: row.sessionId,
      agentId: str(row.agentId),
      kind: str(row.kind),
      // the runtime says `unknown` where it has no channel
      channel: row.channel === 'unknown' ? null : str(row.channel),
      status: str(row.status),
      updatedAt: typeof row.updatedAt === 'number' && Number.isFinite(row.updatedAt) ? row.updatedAt : null,
    });
  }
  const nextOffset = typeof details.nextOffset === 'number' && Number.isSafeInteger(details.nextOffset) ? details.nextOffset : null;
  return { rows, hasMore: details.hasMore === true, nextOffset };
}

/**
 * An agent's session index in the shape of the contract's `sessions.json` (keyed by session key),
 * which the session reader reads whichever way the sessions came.
 */
export function sessionIndexOfRows(rows: readonly GatewaySessionRow[]): Record<string, Record<string, unknown>> {
  const index: Record<string, Record<string, unknown>> = {};
  for (const row of rows) {
    index[row.key] = {
      sessionId: row.sessionId,
      updatedAt: row.updatedAt,
      ...(row.kind ? { kind: row.kind } : {}),
      ...(row.channel ? { channel: row.channel } : {}),
      ...(row.status ? { status: row.status } : {}),
    };
  }
  return index;
}
