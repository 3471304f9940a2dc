import { RuntimeCallError } from '../../core/errors';
import type { RuntimeStateFiles, TranscriptStream, TranscriptWatch } from '../../core/ports/runtime';
import {
  gatewaySessionRows,
  sessionIndexOfRows,
  transcriptLinesOfHistory,
  type GatewaySessionRow,
} from '../../core/runtime/gateway-history';
import { isRecord } from '../../core/runtime/payload';
import { logger } from '../logger';

/** A history answer larger than this is a runaway, not a transcript (it is display text, clipped per message). */
export const GATEWAY_BODY_MAX_BYTES = 64 * 1024 * 1024;
/** The gateway lists at most this many sessions a page (`sessions_list` clamps `limit`). */
const LIST_PAGE = 100;
/** Pages of a session list read at most: 10,000 sessions. */
const LIST_MAX_PAGES = 100;
/** A followed history whose stream broke is opened again after this, doubling up to the maximum. */
const FOLLOW_RETRY_MS = 1_000;
const FOLLOW_RETRY_MAX_MS = 30_000;
/** A gateway whose history route does not stream is re-read this often while a tail follows it. */
export const GATEWAY_HISTORY_REREAD_MS = 2_000;

export interface GatewaySessionsOptions {
  /** http(s) base of the gateway (its WebSocket URL is turned into this by infra/config.ts). */
  url: string;
  /** The gateway's bearer token; sent in the Authorization header only, never logged or answered. */
  token: string | undefined;
  /** Each request's limit: a gateway that accepts the connection and never answers costs this. */
  timeoutMs: number;
  /** SESSION_REPLAY_MAX_BYTES: lines past this many bytes are left out and the answer says truncated. */
  replayMaxBytes: number;
  bodyMaxBytes?: number;
}

interface GatewayAnswer {
  status: number;
  body: unknown;
}

/** The gateway's own words for a refusal (`{error: {message}}` or `{error: "…"}`), clipped. */
function gatewayMessage(body: unknown): string | undefined {
  const error = isRecord(body) ? body.error : undefined;
  const text = typeof error === 'string' ? error : isRecord(error) && typeof error.message === 'string' ? error.message : undefined;
  return text === undefined ? undefined : text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/**
 * The released runtime's sessions and transcripts through its gateway (docs/adr/0010-reaching-the-released-runtime.md):
 * the session list from `POST /tools/invoke` of its `sessions_list` tool, a session's history from
 * `GET /sessions/:sessionKey/history`, both with the gateway's bearer token. The history is turned
 * into transcript lines (core/runtime/gateway-history.ts), so the session reader replays it as it
 * replays a file. Failures are RuntimeCallErrors: no connection → unavailable; no answer in time →
 * timed_out; a refused token (401/403) or another refusal → failed, saying so; a body that is not
 * JSON or too large → bad_output.
 */
export function gatewaySessions(options: GatewaySessionsOptions): RuntimeStateFiles {
  const base = options.url.replace(/\/+$/, '');
  const bodyMax = options.bodyMaxBytes ?? GATEWAY_BODY_MAX_BYTES;

  const fail = (call: string, message: string, failure: RuntimeCallError['failure']): never => {
    logger().warn('runtime gateway call failed', { call, failure, reason: message });
    throw new RuntimeCallError(`runtime gateway ${call}: ${message}`, failure);
  };

  async function request(call: string, path: string, init: { method: 'GET' | 'POST'; body?: unknown }): Promise<GatewayAnswer> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    const signal = AbortSignal.timeout(options.timeoutMs);
    try {
      res = await fetch(`${base}${path}`, {
        method: init.method,
        headers,
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
        signal,
        redirect: 'error',
      });
    } catch (err) {
      if (signal.aborted) return fail(call, `no answer within ${options.timeoutMs} ms`, 'timed_out');
      const cause = (err as { cause?: { code?: string } }).cause?.code;
      return fail(call, `cannot reach the gateway at ${base}${cause ? ` (${cause})` : ''}`, 'unavailable');
    }
    let text: string;
    try {
      text = await readCapped(res, bodyMax);
    } catch (err) {
      if (err instanceof RuntimeCallError) return fail(call, err.message, err.failure);
      if (signal.aborted) return fail(call, `no answer within ${options.timeoutMs} ms`, 'timed_out');
      return fail(call, 'the gateway closed the connection mid-answer', 'unavailable');
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return fail(call, `the gateway answered ${res.status} with a body that is not JSON`, 'bad_output');
    }
    if (res.status === 401 || res.status === 403) {
      const said = gatewayMessage(body);
      return fail(
        call,
        `the gateway refused this server's token (${res.status}${said ? ` ${said}` : ''}); set RUNTIME_GATEWAY_TOKEN to the gateway's token`,
        'failed',
      );
    }
    return { status: res.status, body };
  }

  /** Every session the gateway lists (for one agent, or all), page after page. */
  async function listSessions(agentId?: string): Promise<GatewaySessionRow[]> {
    const rows: GatewaySessionRow[] = [];
    let offset = 0;
    for (let page = 0; page < LIST_MAX_PAGES; page++) {
      const args = { limit: LIST_PAGE, offset, ...(agentId ? { agentId } : {}) };
      const answer = await request('sessions list', '/tools/invoke', { method: 'POST', body: { tool: 'sessions_list', args } });
      const doc = answer.body;
      if (answer.status !== 200 || !isRecord(doc) || doc.ok !== true) {
        return fail('sessions list', `the gateway answered ${answer.status}: ${gatewayMessage(doc) ?? 'no session list'}`, 'failed');
      }
      const listed = gatewaySessionRows(isRecord(doc.result) ? doc.result.details : undefined);
      if (!listed) return fail('sessions list', 'the answer has no sessions array', 'bad_output');
      rows.push(...listed.rows);
      if (!listed.hasMore || listed.rows.length === 0) break;
      offset = listed.nextOffset ?? offset + listed.rows.length;
    }
    return rows;
  }

  /** The session key of an agent's session id, from the gateway's list; undefined when it lists none. */
  async function keyOf(agentId: string, sessionId: string): Promise<string | undefined> {
    return (await listSessions(agentId)).find((row) => row.sessionId === sessionId && (row.agentId ?? agentId) === agentId)?.key;
  }

  /**
   * Follows a session's history through the SSE variant of the history route (`Accept:
   * text/event-stream`: a `history` frame when it opens, a `message` frame per new message, a
   * `history` frame again when the runtime rewrote what it had sent). Each frame only says "changed":
   * the reader then re-reads the JSON history after its cursor, so line numbers come from one place.
   * Resolves 'ended' when the stream ended or broke, 'not-streamed' when the gateway answered
   * something else (an older gateway, a proxy that buffers).
   */
  async function followHistory(key: string, signal: AbortSignal, onChange: () => void): Promise<'ended' | 'not-streamed'> {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    // a gateway that takes the connection and never answers is given up on like any other call;
    // once the stream answered, it may stay quiet for as long as the session does
    const request = new AbortController();
    const stop = () => request.abort();
    signal.addEventListener('abort', stop, { once: true });
    try {
      const giveUp = setTimeout(stop, options.timeoutMs);
      let res: Response;
      try {
        res = await fetch(`${base}/sessions/${encodeURIComponent(key)}/history`, { headers, signal: request.signal, redirect: 'error' });
      } finally {
        clearTimeout(giveUp);
      }
      if (res.status !== 200 || !(res.headers.get('content-type') ?? '').startsWith('text/event-stream') || !res.body) {
        await res.body?.cancel().catch(() => undefined);
        return res.status === 200 ? 'not-streamed' : 'ended';
      }
      return await readFrames(res.body, bodyMax, onChange);
    } finally {
      signal.removeEventListener('abort', stop);
    }
  }

  /** Calls onChange after each chunk that completed a `history` or `message` frame; resolves when the stream ends. */
  async function readFrames(body: ReadableStream<Uint8Array>, max: number, onChange: () => void): Promise<'ended'> {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let pending = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return 'ended';
      pending += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
      let end: number;
      let changed = false;
      while ((end = pending.indexOf('\n\n')) >= 0) {
        const frame = pending.slice(0, end);
        pending = pending.slice(end + 2);
        // comments (`: keepalive`) and `retry:` lines carry no news
        if (/^(event|data):/m.test(frame)) changed = true;
      }
      // a frame never waits whole in memory beyond the body cap
      if (pending.length > max) return 'ended';
      if (changed) onChange();
    }
  }

  /** Keeps a session's history followed until stopped: the stream, reopened with backoff, or a bounded re-read. */
  function watchHistory(agentId: string, sessionId: string, onChange: () => void): TranscriptWatch {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const pause = (ms: number) =>
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ms);
        timer.unref();
      });
    void (async () => {
      let retryMs = FOLLOW_RETRY_MS;
      while (!controller.signal.aborted) {
        let outcome: 'ended' | 'not-streamed' = 'ended';
        let heard = false;
        try {
          const key = await keyOf(agentId, sessionId);
          if (key) {
            outcome = await followHistory(key, controller.signal, () => {
              heard = true;
              onChange();
            });
          }
        } catch {
          outcome = 'ended';
        }
        // a stream that carried frames was healthy: its successor starts from the shortest wait
        if (heard) retryMs = FOLLOW_RETRY_MS;
        if (controller.signal.aborted) return;
        // what was written while the stream was down is read now
        onChange();
        if (outcome === 'not-streamed') {
          logger().info('runtime gateway history does not stream; re-reading it while a tail follows it', {
            everyMs: GATEWAY_HISTORY_REREAD_MS,
          });
          while (!controller.signal.aborted) {
            await pause(GATEWAY_HISTORY_REREAD_MS);
            if (!controller.signal.aborted) onChange();
          }
          return;
        }
        await pause(retryMs);
        retryMs = Math.min(retryMs * 2, FOLLOW_RETRY_MAX_MS);
      }
    })();
    return {
      stop() {
        controller.abort();
        clearTimeout(timer);
      },
    };
  }

  return {
    way: 'gateway',

    watchTranscript: watchHistory,

    async check() {
      const answer = await request('sessions list', '/tools/invoke', {
        method: 'POST',
        body: { tool: 'sessions_list', args: { limit: 1 } },
      });
      if (answer.status !== 200 || !isRecord(answer.body) || answer.body.ok !== true) {
        fail('sessions list', `the gateway answered ${answer.status}: ${gatewayMessage(answer.body) ?? 'no session list'}`, 'failed');
      }
    },

    async listAgentIds() {
      const ids = new Set<string>();
      for (const row of await listSessions()) if (row.agentId) ids.add(row.agentId);
      return [...ids];
    },

    async readSessionIndex(agentId) {
      const rows = await listSessions(agentId);
      // The gateway knows the agent by its sessions; one without any reads as the files' missing index does.
      return rows.length === 0 ? undefined : JSON.stringify(sessionIndexOfRows(rows));
    },

    async openTranscript(agentId, sessionId): Promise<TranscriptStream | undefined> {
      const key = await keyOf(agentId, sessionId);
      if (!key) return undefined;
      const answer = await request('session history', `/sessions/${encodeURIComponent(key)}/history`, { method: 'GET' });
      if (answer.status === 404) return undefined;
      const doc = answer.body;
      if (answer.status !== 200)
        return fail('session history', `the gateway answered ${answer.status}: ${gatewayMessage(doc) ?? 'no history'}`, 'failed');
      if (!isRecord(doc) || !Array.isArray(doc.messages)) return fail('session history', 'the answer has no messages array', 'bad_output');
      const all = transcriptLinesOfHistory(sessionId, doc.messages);
      // the same cap as a transcript file's: whole lines within SESSION_REPLAY_MAX_BYTES
      const kept: string[] = [];
      let bytes = 0;
      for (const line of all) {
        bytes += Buffer.byteLength(line) + 1;
        if (bytes > options.replayMaxBytes) break;
        kept.push(line);
      }
      return {
        lines: (async function* () {
          yield* kept;
        })(),
        truncated: kept.length < all.length,
        close() {},
      };
    },
  };
}

/** The response body as text, refusing one larger than `max` bytes (bad_output) without reading on. */
async function readCapped(res: Response, max: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw new RuntimeCallError(`the answer is larger than ${max} bytes`, 'bad_output');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
