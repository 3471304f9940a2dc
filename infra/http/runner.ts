import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Readable, type Duplex } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Context } from 'aws-lambda';
import { bearerTokenOf, claimOfBearer } from '../../core/auth/bearer-token';
import { MethodNotAllowedError, NotFoundError, PayloadTooLargeError, UnauthorizedError, ValidationError } from '../../core/errors';
import { CORS_PREFLIGHT_HEADERS } from '../../handlers/middleware/cors';
import { internalErrorBody } from '../../handlers/middleware/error-status';
import { settableHeaders } from '../../handlers/middleware/header-values';
import { loadHandler, type RunnerResult } from './load-handler';
import { registerRoutes } from '../../handlers/route-registry';
import { routes as routeTable, type Route } from '../../handlers/routes';
import { config } from '../config';
import { logger } from '../logger';
// the runner serves GET /api/metrics, so its process counts every request and tick
import '../metrics/metrics';
import { toApiGatewayEvent } from './api-gateway-event';

import { carriesBody, refuseBeforeBody, refuseBody, refuseUnparsable, send } from './refusals';
import { BodyTooLarge, readBody } from './request-body';
import { RouteMatcher, type RouteMatch } from './route-matcher';
import type { StaticUi } from './static-ui';

const CORS = CORS_PREFLIGHT_HEADERS;

const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** The methods a path takes, HEAD among them wherever GET is. */
function methodsWithHead(methods: string[]): string[] {
  return methods.includes('GET') ? [...methods, 'HEAD'] : methods;
}

/** Serves the runnerOnly stream routes (infra/events/event-streams.ts); it authenticates and logs them itself. */
export interface StreamServer {
  serve(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    request: { path: string; url: URL; requestId: string; pathParameters: Record<string, string> },
  ): Promise<void>;
  /** Ends open streams so that close() can finish. */
  endAll(): Promise<void>;
}

export interface RunnerOptions {
  host: string;
  port: number;
  /** Per-route body cap; routes flagged largeBody get this instead of 1 MB. */
  largeBodyLimit: number;
  /** The rows served (the whole table when absent), registered for the middy stack as they are. */
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

/** What the runner reads off a request before routing it. */
interface IncomingRequest {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  requestId: string;
  url: URL;
  method: string;
  /** The path without trailing slashes. */
  path: string;
  /** HEAD is GET without the body (RFC 9110 9.3.2), asked by monitors and `curl -I`: the GET route answers it. */
  head: boolean;
}

function incoming(req: http.IncomingMessage, res: http.ServerResponse): IncomingRequest {
  const url = new URL(req.url ?? '/', 'http://runner.local');
  const method = (req.method ?? 'GET').toUpperCase();
  const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
  return { req, res, requestId: randomUUID(), url, method, path, head: method === 'HEAD' };
}

/** The route of a request, or undefined once it has been refused (no such route, an undecodable path parameter). */
function routeOf(matcher: RouteMatcher, request: IncomingRequest): RouteMatch | undefined {
  const { req, res, method, path, requestId } = request;
  const match = matcher.match(request.head ? 'GET' : method, path);
  if (!match) {
    const allowed = methodsWithHead(matcher.methodsFor(path));
    const error = new NotFoundError(
      allowed.length ? `no route for ${method} ${path} (this path takes ${allowed.join(', ')})` : `no route for ${method} ${path}`,
    );
    refuseBeforeBody(req, res, error, {});
    return undefined;
  }
  if (match.undecodable) {
    const error = new ValidationError(`path parameter ${match.undecodable}: malformed percent-encoding`, [
      { path: match.undecodable, message: 'malformed percent-encoding' },
    ]);
    refuseBody(req, res, error, { 'x-request-id': requestId });
    return undefined;
  }
  return match;
}

/**
 * Whether the request may go on to have its body read: the token is checked before any of the body
 * is read, so a caller without one gets 401 whatever it sends (an agent token is looked up by the
 * handler's middleware, which answers 401 if it is not one).
 */
function passesBearerCheck(request: IncomingRequest, route: Route): boolean {
  const { req, res, requestId, method, path } = request;
  if (route.public || !carriesBody(req) || claimOfBearer(config().authToken, bearerTokenOf(req.headers.authorization)) !== 'refused')
    return true;
  logger().info('request', { requestId, method, path, status: 401, durationMs: 0 });
  refuseBody(req, res, new UnauthorizedError('missing or invalid bearer token'), { 'x-request-id': requestId });
  return false;
}

/** The request's body as text (undefined: none), or `refused` once a body above the route's limit was answered 413. */
async function bodyOf(request: IncomingRequest, route: Route, largeBodyLimit: number): Promise<string | undefined | 'refused'> {
  const { req, res, requestId } = request;
  // a request that announces no body has none: nothing to wait for
  if (!carriesBody(req)) {
    req.resume();
    return undefined;
  }
  const limit = route.largeBody ? largeBodyLimit : DEFAULT_BODY_LIMIT;
  try {
    return await readBody(req, limit);
  } catch (err) {
    if (!(err instanceof BodyTooLarge)) {
      res.destroy(); // the client went away mid-body
      return 'refused';
    }
    // spec 02 names the condition in `error` on its large-body (restore) routes
    const error = route.largeBody
      ? new PayloadTooLargeError('payload_too_large', { message: `request body above ${limit} bytes, refused before parsing`, limit })
      : new PayloadTooLargeError(`request body too large: above ${limit} bytes`, { limit });
    refuseBody(req, res, error, { 'x-request-id': requestId });
    return 'refused';
  }
}

/** Calls the route's Lambda handler with the API Gateway event AWS would send. */
async function invoke(request: IncomingRequest, match: RouteMatch, body: string | undefined): Promise<RunnerResult> {
  const { req, url, method, requestId } = request;
  const raw = { method, headers: req.headers, sourceIp: req.socket.remoteAddress ?? '', httpVersion: req.httpVersion };
  const event = toApiGatewayEvent({ req: raw, url, route: match.route, pathParameters: match.pathParameters, body, requestId });
  const handler = await loadHandler(match.route.handler);
  const context = {
    awsRequestId: requestId,
    functionName: 'local-runner',
    callbackWaitsForEmptyEventLoop: false,
    acceptsBodyStream: true,
  } as unknown as Context & { acceptsBodyStream: boolean };
  return handler(event, context);
}

/** Writes a handler's result: whole with its length, streamed, or (HEAD) its headers only. */
async function writeResult(request: IncomingRequest, result: RunnerResult): Promise<void> {
  const { res, requestId } = request;
  // the preflight headers first, the handler's over them, in one object; one node:http would
  // throw on is dropped (the envelope has already encoded what it echoes; this is the last guard)
  const headers: Record<string, string> = { ...CORS };
  let lengthGiven = false;
  const given = settableHeaders(result.headers ?? {}, (name) =>
    logger().warn('response header dropped: its value cannot be sent', { requestId, header: name }),
  );
  for (const k in given) {
    headers[k] = String(given[k]);
    lengthGiven ||= k.toLowerCase() === 'content-length';
  }
  if (result.bodyStream && request.head) {
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
  if (res.headersSent) return;
  // a known length: headers and body leave in one write, not as chunked encoding's four pieces
  const status = result.statusCode ?? 200;
  if (payload !== undefined && status !== 204 && status !== 304 && !lengthGiven)
    headers['content-length'] = String(Buffer.byteLength(payload));
  res.writeHead(status, headers);
  res.end(payload);
}

/**
 * The local runner: node:http in front of the same Lambda handlers AWS would call.
 * It answers CORS preflights, unknown routes and oversized bodies itself, and never dies of a request.
 */
export async function startRunner(options: RunnerOptions): Promise<Runner> {
  // the table registered itself on import; rows given instead are registered for the middy stack too
  if (options.routes) registerRoutes(options.routes);
  const matcher = new RouteMatcher(options.routes ?? routeTable);
  let inFlight = 0;
  let drained: (() => void) | undefined;

  // a request's path through the runner, each step answering and stopping it when it refuses
  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const request = incoming(req, res);
    if (request.method === 'OPTIONS') {
      const allowed = methodsWithHead(matcher.methodsFor(request.path));
      send(res, 204, { 'access-control-allow-methods': [...allowed, 'OPTIONS'].join(', ') });
      req.resume();
      return;
    }
    if (options.staticUi?.handles(request.method, request.path)) {
      req.resume();
      await options.staticUi.serve(req, res, request.path);
      return;
    }
    const match = routeOf(matcher, request);
    if (!match) return;
    if (match.route.runnerOnly && options.streams) {
      // a stream has no length to announce and would never end: it is opened with GET
      if (request.head)
        return refuseBeforeBody(req, res, new MethodNotAllowedError('a stream is opened with GET'), {
          allow: 'GET',
          'x-request-id': request.requestId,
        });
      return options.streams.serve(req, res, {
        path: match.route.path,
        url: request.url,
        requestId: request.requestId,
        pathParameters: match.pathParameters,
      });
    }
    if (!passesBearerCheck(request, match.route)) return;
    const body = await bodyOf(request, match.route, options.largeBodyLimit);
    if (body === 'refused') return;
    await writeResult(request, await invoke(request, match, body));
  };

  const server = http.createServer((req, res) => {
    inFlight++;
    res.on('close', () => {
      inFlight--;
      if (inFlight === 0) drained?.();
    });
    handle(req, res).catch((err: Error) => {
      logger().error('runner failed a request', { error: err });
      send(res, 500, { 'content-type': 'application/json; charset=utf-8' }, JSON.stringify(internalErrorBody()));
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
