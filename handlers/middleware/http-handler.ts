import { randomUUID } from 'node:crypto';
import middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { authorizeAgentRequest } from '../../core/auth/agent-access';
import { OPERATOR_PRINCIPAL, principalOfAgentToken, type Principal } from '../../core/auth/principal';
import { bearerTokenOf, claimOfBearer } from '../../core/auth/bearer-token';
import { CORS_HEADERS } from './cors';
import { requireDb } from '../../core/storage';
import { DomainError, UnauthorizedError, ValidationError } from '../../core/errors';
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from '../../core/validation';
import { ignoredQueryKeys } from '../../core/query-params';
import { appContext, type AppContext } from '../../infra/app-context';
import { config } from '../../infra/config';
import { resolveSecretParameters } from '../../infra/secrets/secret-parameters';
import { logger, logsInfo } from '../../infra/logger';
import { observations } from '../../infra/metrics/observations';
import { defaultSuccessOf, successStatusesOf } from '../route';
import { routeByKey } from '../route-registry';
import { errorAnswer, internalErrorBody } from './error-status';
import { echoedListHeader, settableHeaders } from './header-values';
import { collectBodyStream, json, type BodyStreamingContext, type EndpointResult, type HttpResult } from './responses';

/**
 * An API Gateway v2 event whose body the JSON parser has replaced with its parsed value, and who
 * the request acts as (set by the authentication middleware; undefined only before it ran).
 */
export type HttpEvent = Omit<APIGatewayProxyEventV2, 'body'> & { body?: unknown; principal?: Principal };

export type EndpointFn = (event: HttpEvent, app: AppContext) => Promise<EndpointResult>;

/** serverless-offline gives every event this same placeholder; a request id must tell requests apart. */
const OFFLINE_PLACEHOLDER_ID = /^offlineContext_/;

/** An invoker's request id is echoed in X-Request-Id only when it is a plain header token. */
const ECHOABLE_REQUEST_ID = /^[!-~]{1,128}$/;

function requestIdOf(event: APIGatewayProxyEventV2): string {
  const given = event.requestContext?.requestId;
  return given && ECHOABLE_REQUEST_ID.test(given) && !OFFLINE_PLACEHOLDER_ID.test(given) ? given : randomUUID();
}

/** A header by its lower-case name: API Gateway and the runner send lower-case names, other invokers may not. */
function header(event: APIGatewayProxyEventV2, name: string): string | undefined {
  const headers = event.headers ?? {};
  const exact = headers[name];
  if (exact !== undefined) return exact;
  // absent (the common case for authorization on public reads): a scan without copying the headers
  for (const key in headers) if (key.toLowerCase() === name) return headers[key];
  return undefined;
}

/** Turns any thrown value into a JSON error response; only bugs become 500, and they say nothing inside. */
function errorResponse(error: unknown, requestId: string): HttpResult {
  if (error instanceof DomainError) {
    const answer = errorAnswer(error);
    return json(answer.status, answer.body);
  }
  const http = error as { statusCode?: number; message?: string; cause?: { package?: string } };
  if (typeof http?.statusCode === 'number' && http.statusCode < 500) {
    if (http.cause?.package === '@middy/http-json-body-parser') {
      return json(400, { error: 'malformed JSON body: the request body must be valid JSON', code: 'malformed_json' });
    }
    return json(http.statusCode, { error: http.message ?? 'bad request' });
  }
  return json(500, internalErrorBody(requestId));
}

/**
 * Names the query keys the route did not know and dropped (core/query-params.ts parseQuery),
 * percent-encoded and capped (header-values.ts): a key may hold anything a client can send.
 */
function ignoredParamsHeader(event: APIGatewayProxyEventV2): Record<string, string> {
  const ignored = ignoredQueryKeys(event.queryStringParameters);
  return ignored.length ? { 'x-ignored-params': echoedListHeader(ignored) } : {};
}

/**
 * The status of an answer: the one its handler named, or its route row's (the first success status,
 * 200 without a row). A success status the row does not list is a bug of the handler or the row,
 * logged here (and failed by the tests, which hold every answer to the OpenAPI document).
 */
function statusOf(response: EndpointResult, routeKey: string | undefined, requestId: string): number {
  const route = routeByKey(routeKey);
  const named = response.statusCode;
  if (named === undefined) {
    if (!route) logger().error('no route row registered for this route key: its answer takes 200', { requestId, routeKey });
    return defaultSuccessOf(route);
  }
  if (route && named < 400 && !successStatusesOf(route).includes(named)) {
    logger().error('the handler answered a success status its route row does not list', {
      requestId,
      routeKey,
      status: named,
      listed: successStatusesOf(route),
    });
  }
  return named;
}

/**
 * Request logging, CORS header, error shaping and the status a handler leaves to its row, in one
 * place: every response of every handler passes through here. The logged path never carries the
 * query string.
 */
const envelope = (): middy.MiddlewareObj<APIGatewayProxyEventV2, EndpointResult> => {
  const started = new WeakMap<object, number>();
  const finish = (request: middy.Request<APIGatewayProxyEventV2, EndpointResult>) => {
    const requestId = requestIdOf(request.event);
    if (request.error && !request.response) {
      const answer = errorResponse(request.error, requestId);
      request.response = answer;
      if (answer.statusCode >= 500) logger().error('request failed', { requestId, error: request.error as Error });
    }
    const response = request.response!;
    const status = (response.statusCode = statusOf(response, request.event.routeKey, requestId));
    response.headers = settableHeaders(
      { ...response.headers, ...CORS_HEADERS, 'x-request-id': requestId, ...ignoredParamsHeader(request.event) },
      (name) => logger().warn('response header dropped: its value cannot be sent', { requestId, header: name }),
    );
    const durationMs = Date.now() - (started.get(request) ?? Date.now());
    const method = request.event.requestContext?.http?.method;
    // the logger reads the environment on every call, even for a line its level drops
    if (logsInfo()) logger().info('request', { requestId, method, path: request.event.rawPath, status, durationMs });
    observations.request(request.event.routeKey, method ?? 'GET', status, durationMs / 1000);
  };
  return {
    before: (request) => {
      started.set(request, Date.now());
    },
    after: finish,
    onError: finish,
  };
};

/**
 * Spec 01 Authentication: bearer token on every non-public route when DASHBOARD_AUTH_TOKEN is set.
 * A bearer shaped like an agent token (and not the operator's) is looked up, with or
 * without DASHBOARD_AUTH_TOKEN, and the request then acts as that agent; an unknown, revoked or
 * expired one is 401 (a public route answers as for no token).
 */
const authentication = (): middy.MiddlewareObj<APIGatewayProxyEventV2, EndpointResult> => ({
  before: async (request) => {
    // a token kept in SSM is read before the first check, never skipped: no token read, no answer
    await resolveSecretParameters();
    const event = request.event as HttpEvent;
    const token = config().authToken;
    const route = routeByKey(event.routeKey);
    const bearer = bearerTokenOf(header(request.event, 'authorization'));
    const claim = claimOfBearer(token, bearer);
    if (claim === 'agent_token') {
      const { deps } = await appContext();
      const principal = await principalOfAgentToken(requireDb(deps.storage), bearer!, deps.clock.now());
      if (principal) {
        event.principal = principal;
        return;
      }
      if (!route?.public) throw new UnauthorizedError('unknown, revoked or expired agent token');
    }
    event.principal = OPERATOR_PRINCIPAL;
    if (claim === 'refused' && !route?.public) {
      // thrown, not returned: an early response would skip the envelope's CORS header and log line
      throw new UnauthorizedError('missing or invalid bearer token');
    }
  },
});

/**
 * What an agent token may do (the route row's `agent` rule, core/auth/agent-access.ts), once the body is parsed: a
 * route beyond the agent is 403, and the body leaves with the agent's identity bound in it.
 */
const agentAccess = (): middy.MiddlewareObj<APIGatewayProxyEventV2, EndpointResult> => ({
  before: async (request) => {
    const event = request.event as HttpEvent;
    // public routes answer anyone, as they are
    if (event.principal?.kind !== 'agent' || routeByKey(event.routeKey)?.public) return;
    const { deps } = await appContext();
    event.body = await authorizeAgentRequest(requireDb(deps.storage), event.principal, {
      routeKey: event.routeKey,
      rule: routeByKey(event.routeKey)?.agent,
      pathParameters: event.pathParameters ?? {},
      body: event.body,
    });
  },
});

/** Refuses a body nested deeper than MAX_JSON_DEPTH before anything walks it (raw-body routes too). */
const nestingLimit = (): middy.MiddlewareObj<APIGatewayProxyEventV2, EndpointResult> => ({
  before: (request) => {
    const body = request.event.body;
    if (typeof body !== 'string' || body === '') return;
    if (jsonNestsDeeperThan(request.event.isBase64Encoded ? Buffer.from(body, 'base64') : body)) {
      throw new ValidationError(`request body nested deeper than ${MAX_JSON_DEPTH} levels of objects and arrays`, [
        { path: 'body', message: `at most ${MAX_JSON_DEPTH} levels of nesting` },
      ]);
    }
  },
});

/** JSON bodies are parsed whatever the Content-Type (clients such as curl -d send form types); empty means none. */
const jsonBody = (): middy.MiddlewareObj<APIGatewayProxyEventV2, EndpointResult> => {
  // disableContentTypeCheck exists in the middleware but not in its published types.
  const parser = httpJsonBodyParser({ disableContentTypeCheck: true } as Parameters<typeof httpJsonBodyParser>[0]);
  return {
    before: async (request) => {
      const body = request.event.body;
      if (body === undefined || body === null || body === '') {
        (request.event as HttpEvent).body = undefined;
        return;
      }
      await parser.before!(request as never);
    },
  };
};

export interface HandlerOptions {
  /** Leave event.body unparsed (restore reads its up-to-RESTORE_MAX_BYTES body incrementally, spec 02). */
  rawBody?: boolean;
}

/** Wraps an endpoint function in the shared middy stack; each handler module is one line of this. */
export function httpHandler(endpoint: EndpointFn, options: HandlerOptions = {}) {
  const stack = middy<APIGatewayProxyEventV2, EndpointResult, Error, Context>().use(envelope()).use(authentication()).use(nestingLimit());
  if (!options.rawBody) stack.use(jsonBody());
  stack.use(agentAccess());
  return stack.handler(async (event, context) => {
    const result = await endpoint(event as HttpEvent, await appContext());
    return (context as BodyStreamingContext).acceptsBodyStream ? result : collectBodyStream(result);
  });
}

/** The request body's bytes, for handlers registered with rawBody. */
export function rawBodyOf(event: HttpEvent): Buffer {
  const body = event.body;
  if (typeof body !== 'string' || body === '') return Buffer.alloc(0);
  return Buffer.from(body, event.isBase64Encoded ? 'base64' : 'utf8');
}

export { json };
