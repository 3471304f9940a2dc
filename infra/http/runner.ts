import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Readable, type Duplex } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Context } from 'aws-lambda';
import { bearerTokenOf, tokenMatches } from '../../core/auth/bearer-token';
import { isAgentToken } from '../../core/auth/principal';
import { settableHeaders } from '../../handlers/middleware/header-values';
import { routes as routeTable, type Route } from '../../handlers/routes';
import { config } from '../config';
import { logger } from '../logger';
// the runner serves GET /api/metrics, so its process counts every request and tick
import '../metrics/metrics';
import { toApiGatewayEvent } from './api-gateway-event';
import { CORS_PREFLIGHT_HEADERS } from '../../handlers/middleware/cors';
import { loadHandler } from './load-handler';
import { RouteMatcher } from './route-matcher';
import type { StaticUi } from './static-ui';

const CORS = CORS_PREFLIGHT_HEADERS;

const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * After refusing a body, how much more of it the runner reads and discards before it gives up on
 * the client. Closing while the client is still sending makes its kernel reset the connection and
 * throw away the answer it already received (ECONNRESET instead of 413), so the rest is drained.
 */
const DRAIN_LIMIT = 64 * 1024 * 1024;

class BodyTooLarge extends Error {}

function readBody(req: http.IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) {
      reject(new BodyTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        chunks.length = 0;
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => resolve(size ? Buffer.concat(chunks).toString('utf8') : undefined));
    req.on('error', reject);
  });
}

function send(res: http.ServerResponse, status: number, headers: Record<string, string>, body?: string): void {
  if (res.headersSent) return;
  res.writeHead(status, { ...CORS, ...headers });
  res.end(body);
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  send(res, status, { 'content-type': 'application/json; charset=utf-8' }, JSON.stringify(body));
}

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
  return { text, headers: { ...CORS, 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)), connection: 'close' } };
}

/**
 * Answers a request whose body the runner will not read (too large, or no valid token), then
 * closes the connection: the whole answer goes out at once with `Connection: close`, the rest of
 * the body is read and discarded, and only then does the response end and the socket close, so
 * the client gets the answer rather than a reset. A client that keeps sending past DRAIN_LIMIT is
 * cut off.
 */
function refuseBody(req: http.IncomingMessage, res: http.ServerResponse, status: number, headers: Record<string, string>, body: unknown): void {
  const refusal = refusalHead(body);
  res.writeHead(status, { ...headers, ...refusal.headers });
  res.write(refusal.text);
  if (req.complete) {
    res.end();
    return;
  }
  discardRest(req, () => res.end(), () => req.socket.destroy());
}

/**
 * A refusal decided from the request line alone: a request announcing a body is refused as
 * refuseBody does (its body drained, then the connection closed); one without keeps its connection.
 */
function refuseBeforeBody(req: http.IncomingMessage, res: http.ServerResponse, status: number, headers: Record<string, string>, body: unknown): void {
  if (carriesBody(req)) {
    refuseBody(req, res, status, headers, body);
    return;
  }
  req.resume();
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
function refuseUnparsable(err: NodeJS.ErrnoException, socket: Socket): void {
  // a response of an earlier request on this connection already started: nothing can follow it
  const answering = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  if (err.code === 'ECONNRESET' || !socket.writable || answering) {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const refusal = refusalHead(
    tooLarge
      ? { error: 'request line and headers too large', code: 'header_too_large' }
      : { error: 'malformed HTTP request: the request line or a header is not valid HTTP (raw bytes in a path must be percent-encoded)', code: 'malformed_request' },
  );
  const head = Object.entries(refusal.headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  socket.write(`HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\n${head}\r\n${refusal.text}`);
  socket.setTimeout(DRAIN_IDLE_MS, () => socket.end());
  discardRest(socket, () => socket.end(), () => socket.destroy());
}

/** The methods a path takes, HEAD among them wherever GET is. */
function methodsWithHead(methods: string[]): string[] {
  return methods.includes('GET') ? [...methods, 'HEAD'] : methods;
}

/** Whether a request announces a body (a length above 0, or chunked). */
function carriesBody(req: http.IncomingMessage): boolean {
  return Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
}

/** Serves the runnerOnly stream routes (infra/events/event-streams.ts); it authenticates and logs them itself. */
export interface StreamServer {
  serve(req: http.IncomingMessage, res: http.ServerResponse, request: { path: string; url: URL; requestId: string; pathParameters: Record<string, string> }): Promise<void>;
  /** Ends open streams so that close() can finish. */
  endAll(): Promise<void>;
}

export interface RunnerOptions {
  host: string;
  port: number;
  /** Per-route body cap; routes flagged largeBody get this instead of 1 MB. */
  largeBodyLimit: number;
  routes?: readonly Route[];
  /** Without it, stream routes fall through to their handler, which says streams are not served there. */
  streams?: StreamServer;
  /** DASHBOARD_UI_DIR's files, served outside /api/ (infra/http/static-ui.ts). */
  staticUi?: StaticUi;
}

export interface Runner {
  server: http.Server;
  url: string;
  close(): Promise<void>;
}

/**
 * The local runner: node:http in front of the same Lambda handlers AWS would call.
 * It answers CORS preflights, unknown routes and oversized bodies itself, and never dies of a request.
 */
export async function startRunner(options: RunnerOptions): Promise<Runner> {
  const matcher = new RouteMatcher(options.routes ?? routeTable);
  let inFlight = 0;
  let drained: (() => void) | undefined;

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const requestId = randomUUID();
    const url = new URL(req.url ?? '/', 'http://runner.local');
    const method = (req.method ?? 'GET').toUpperCase();
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    // HEAD is GET without the body (RFC 9110 9.3.2), asked by monitors and `curl -I`: the GET route
    // answers it, and node:http sends its headers only
    const head = method === 'HEAD';

    if (method === 'OPTIONS') {
      const allowed = methodsWithHead(matcher.methodsFor(path));
      send(res, 204, { 'access-control-allow-methods': [...allowed, 'OPTIONS'].join(', ') });
      req.resume();
      return;
    }
    if (options.staticUi?.handles(method, path)) {
      req.resume();
      await options.staticUi.serve(req, res, path);
      return;
    }
    const match = matcher.match(head ? 'GET' : method, path);
    if (!match) {
      const allowed = methodsWithHead(matcher.methodsFor(path));
      refuseBeforeBody(req, res, 404, {}, {
        error: allowed.length ? `no route for ${method} ${path} (this path takes ${allowed.join(', ')})` : `no route for ${method} ${path}`,
        code: 'not_found',
      });
      return;
    }
    if (match.undecodable) {
      refuseBody(req, res, 400, { 'x-request-id': requestId }, {
        error: `path parameter ${match.undecodable}: malformed percent-encoding`,
        code: 'validation_failed',
        details: [{ path: match.undecodable, message: 'malformed percent-encoding' }],
      });
      return;
    }
    if (match.route.runnerOnly && options.streams) {
      if (head) {
        // a stream has no length to announce and would never end: it is opened with GET
        refuseBeforeBody(req, res, 405, { allow: 'GET', 'x-request-id': requestId }, { error: 'a stream is opened with GET', code: 'method_not_allowed' });
        return;
      }
      await options.streams.serve(req, res, { path: match.route.path, url, requestId, pathParameters: match.pathParameters });
      return;
    }
    // the token is checked before any of the body is read: a caller without one gets 401, whatever it sends
    // (an agent token is looked up by the handler's middleware, which answers 401 if it is not one)
    const token = config().authToken;
    const bearer = bearerTokenOf(req.headers.authorization);
    if (token && !match.route.public && carriesBody(req) && !tokenMatches(token, bearer) && !isAgentToken(bearer)) {
      logger().info('request', { requestId, method, path, status: 401, durationMs: 0 });
      refuseBody(req, res, 401, { 'x-request-id': requestId }, { error: 'missing or invalid bearer token', code: 'unauthorized' });
      return;
    }
    let body: string | undefined;
    try {
      // a request that announces no body has none: nothing to wait for
      if (carriesBody(req)) body = await readBody(req, match.route.largeBody ? options.largeBodyLimit : DEFAULT_BODY_LIMIT);
      else req.resume();
    } catch (err) {
      if (err instanceof BodyTooLarge) {
        const limit = match.route.largeBody ? options.largeBodyLimit : DEFAULT_BODY_LIMIT;
        // spec 02 names the condition in `error` on its large-body (restore) routes
        refuseBody(
          req,
          res,
          413,
          { 'x-request-id': requestId },
          match.route.largeBody
            ? { error: 'payload_too_large', message: `request body above ${limit} bytes, refused before parsing`, code: 'payload_too_large', limit }
            : { error: `request body too large: above ${limit} bytes`, code: 'payload_too_large', limit },
        );
      } else {
        res.destroy(); // the client went away mid-body
      }
      return;
    }
    const raw = { method, headers: req.headers, sourceIp: req.socket.remoteAddress ?? '', httpVersion: req.httpVersion };
    const event = toApiGatewayEvent({ req: raw, url, route: match.route, pathParameters: match.pathParameters, body, requestId });
    const handler = await loadHandler(match.route.handler);
    const context = { awsRequestId: requestId, functionName: 'local-runner', callbackWaitsForEmptyEventLoop: false, acceptsBodyStream: true } as unknown as Context & { acceptsBodyStream: boolean };
    const result = await handler(event, context);
    // the preflight headers first, the handler's over them, in one object; one node:http would
    // throw on is dropped (the envelope has already encoded what it echoes; this is the last guard)
    const headers: Record<string, string> = { ...CORS };
    let lengthGiven = false;
    const given = settableHeaders(result.headers ?? {}, (name) => logger().warn('response header dropped: its value cannot be sent', { requestId, header: name }));
    for (const k in given) {
      headers[k] = String(given[k]);
      lengthGiven ||= k.toLowerCase() === 'content-length';
    }
    if (result.bodyStream && head) {
      // none of it is sent, and it is not drained: its first chunk is read and it is closed, which
      // releases what it opened (a file, a query), where closing it unstarted would skip its cleanup
      const chunks = result.bodyStream[Symbol.asyncIterator]();
      try {
        await chunks.next();
      } catch {
        // GET would have cut its body short here; HEAD has none to cut
      } finally {
        await chunks.return?.()?.catch(() => undefined);
      }
      res.writeHead(result.statusCode ?? 200, headers);
      res.end();
      return;
    }
    if (result.bodyStream) {
      res.writeHead(result.statusCode ?? 200, headers);
      // a read failure after the headers went out can only cut the response short
      await pipeline(Readable.from(result.bodyStream), res).catch((err: NodeJS.ErrnoException) => {
        // a client that went away is not a failure of ours
        if (err.code !== 'ERR_STREAM_PREMATURE_CLOSE') logger().error('streamed response failed', { requestId, error: err });
        res.destroy();
      });
      return;
    }
    const payload = result.bodyBytes ?? (result.isBase64Encoded && result.body ? Buffer.from(result.body, 'base64') : result.body);
    if (!res.headersSent) {
      // a known length: headers and body leave in one write, not as chunked encoding's four pieces
      const status = result.statusCode ?? 200;
      if (payload !== undefined && status !== 204 && status !== 304 && !lengthGiven) headers['content-length'] = String(Buffer.byteLength(payload));
      res.writeHead(status, headers);
      res.end(payload);
    }
  };

  const server = http.createServer((req, res) => {
    inFlight++;
    res.on('close', () => {
      inFlight--;
      if (inFlight === 0) drained?.();
    });
    handle(req, res).catch((err: Error) => {
      logger().error('runner failed a request', { error: err });
      sendJson(res, 500, { error: 'internal server error', code: 'internal' });
    });
  });
  server.keepAliveTimeout = 5_000;
  // node:http reports a parse error again for every later chunk of the same connection: answered once
  const refusedSockets = new WeakSet<Duplex>();
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (refusedSockets.has(socket)) return;
    refusedSockets.add(socket);
    // a TCP connection: node:http types it as the Duplex it also accepts from custom transports
    refuseUnparsable(err, socket as Socket);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    server,
    url: `http://${host}:${address.port}`,
    async close() {
      // Stop accepting, let in-flight requests finish, then drop idle keep-alive sockets.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await options.streams?.endAll();
      if (inFlight > 0) await new Promise<void>((resolve) => (drained = resolve));
      server.closeIdleConnections();
      await closed;
    },
  };
}
