import type http from 'node:http';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { HeaderTooLargeError, MalformedRequestError } from '../../core/errors';
import { CORS_PREFLIGHT_HEADERS } from '../../handlers/middleware/cors';
import { errorAnswer } from '../../handlers/middleware/error-status';

/**
 * How the runner refuses a request without losing the answer: a client still sending its body when
 * the connection closes has its kernel reset the connection and throw the answer away, so every
 * refusal writes its whole JSON answer, reads and discards what is still coming, and only then closes.
 * The bodies come from the one error table (handlers/middleware/error-status.ts).
 */

const CORS = CORS_PREFLIGHT_HEADERS;

/** Writes a whole answer, once (a response already started is left alone). */
export function send(res: http.ServerResponse, status: number, headers: Record<string, string>, body?: string): void {
  if (res.headersSent) return;
  res.writeHead(status, { ...CORS, ...headers });
  res.end(body);
}

/**
 * After refusing a body, how much more of it the runner reads and discards before it gives up on
 * the client. Closing while the client is still sending makes its kernel reset the connection and
 * throw away the answer it already received (ECONNRESET instead of 413), so the rest is drained.
 */
const DRAIN_LIMIT = 64 * 1024 * 1024;

/** With no framing to say where a refused request ends, the client is done once it sends nothing for this long. */
const DRAIN_IDLE_MS = 2_000;

/**
 * Reads and discards what a refused client still sends, then `finished` (the answer is already
 * written whole); past DRAIN_LIMIT, or on a read error, `cutOff`.
 */
function discardRest(source: Readable, finished: () => void, cutOff: () => void): void {
  let drained = 0;
  source.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > DRAIN_LIMIT) cutOff();
  });
  source.on('end', finished);
  source.on('error', cutOff);
  source.resume();
}

/** The whole answer of a refusal, written at once: JSON with its length, and `Connection: close`. */
function refusalHead(body: unknown): { text: string; headers: Record<string, string> } {
  const text = JSON.stringify(body);
  return {
    text,
    headers: {
      ...CORS,
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(text)),
      connection: 'close',
    },
  };
}

/**
 * Answers a request whose body the runner will not read (too large, or no valid token), then
 * closes the connection: the whole answer goes out at once with `Connection: close`, the rest of
 * the body is read and discarded, and only then does the response end and the socket close, so
 * the client gets the answer rather than a reset. A client that keeps sending past DRAIN_LIMIT is
 * cut off.
 */
export function refuseBody(req: http.IncomingMessage, res: http.ServerResponse, error: Error, headers: Record<string, string>): void {
  const { status, body } = errorAnswer(error);
  const refusal = refusalHead(body);
  res.writeHead(status, { ...headers, ...refusal.headers });
  res.write(refusal.text);
  if (req.complete) {
    res.end();
    return;
  }
  discardRest(
    req,
    () => res.end(),
    () => req.socket.destroy(),
  );
}

/**
 * A refusal decided from the request line alone: a request announcing a body is refused as
 * refuseBody does (its body drained, then the connection closed); one without keeps its connection.
 */
export function refuseBeforeBody(req: http.IncomingMessage, res: http.ServerResponse, error: Error, headers: Record<string, string>): void {
  if (carriesBody(req)) {
    refuseBody(req, res, error, headers);
    return;
  }
  req.resume();
  const { status, body } = errorAnswer(error);
  send(res, status, { ...headers, 'content-type': 'application/json; charset=utf-8' }, JSON.stringify(body));
}

/**
 * A request node:http cannot parse (a raw control or non-ASCII byte in its path, a bad header,
 * a request line and headers above the header limit) is refused before any of it reaches a
 * route, as refuseBody refuses one: the whole JSON answer, then what the client still sends is
 * discarded until it stops (it ends its side, or sends nothing for DRAIN_IDLE_MS), then the
 * socket closes. Node's own answer would close at once and the client, still sending, would get
 * a reset instead of the 400.
 */
export function refuseUnparsable(err: NodeJS.ErrnoException, socket: Socket): void {
  // a response of an earlier request on this connection already started: nothing can follow it
  const answering = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  if (err.code === 'ECONNRESET' || !socket.writable || answering) {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const refusal = refusalHead(
    errorAnswer(
      tooLarge
        ? new HeaderTooLargeError('request line and headers too large')
        : new MalformedRequestError(
            'malformed HTTP request: the request line or a header is not valid HTTP (raw bytes in a path must be percent-encoded)',
          ),
    ).body,
  );
  const head = Object.entries(refusal.headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.write(`HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\n${head}\r\n${refusal.text}`);
  socket.setTimeout(DRAIN_IDLE_MS, () => socket.end());
  discardRest(
    socket,
    () => socket.end(),
    () => socket.destroy(),
  );
}

/** Whether a request announces a body (a length above 0, or chunked). */
export function carriesBody(req: http.IncomingMessage): boolean {
  return Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
}
