import { readFileSync } from 'node:fs';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/**
 * API Gateway v2 (HTTP API) events for handler tests, built from a fixture recorded in AWS's own
 * shape (test/fixtures/api-gateway/request-template.json) with the request's parts filled in.
 * Deliberately not the runner's converter (infra/http/api-gateway-event.ts): a mistake there must
 * show up as a difference between the two (test/handlers/api-gateway-events.test.ts), not hide in
 * every handler test.
 */
const template = JSON.parse(
  readFileSync(new URL('../fixtures/api-gateway/request-template.json', import.meta.url), 'utf8'),
) as APIGatewayProxyEventV2;

export interface FixtureRequest {
  method: string;
  /** Path and query as sent, e.g. `/api/tasks/all?status=ready`. */
  target: string;
  /** "METHOD /route/{param}" of the matched route. */
  routeKey: string;
  pathParameters?: Record<string, string>;
  /** Lower-case names. */
  headers?: Record<string, string>;
  body?: string;
  requestId?: string;
}

/**
 * What API Gateway documents for `queryStringParameters`: decoded values, a repeated key's values
 * joined with commas in order, absent when there is no query string.
 */
function queryStringParameters(rawQuery: string): Record<string, string> | undefined {
  if (rawQuery === '') return undefined;
  const out: Record<string, string> = {};
  for (const pair of rawQuery.split('&')) {
    if (pair === '') continue;
    const at = pair.indexOf('=');
    const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    const key = decode(at < 0 ? pair : pair.slice(0, at));
    const value = at < 0 ? '' : decode(pair.slice(at + 1));
    out[key] = key in out ? `${out[key]},${value}` : value;
  }
  return Object.keys(out).length ? out : undefined;
}

export function fixtureEvent(request: FixtureRequest): APIGatewayProxyEventV2 {
  const queryAt = request.target.indexOf('?');
  const rawPath = queryAt < 0 ? request.target : request.target.slice(0, queryAt);
  const rawQueryString = queryAt < 0 ? '' : request.target.slice(queryAt + 1);
  const { cookie, ...headers } = { ...template.headers, ...(request.headers ?? {}) };
  const event: APIGatewayProxyEventV2 = {
    ...template,
    routeKey: request.routeKey,
    rawPath,
    rawQueryString,
    headers,
    requestContext: {
      ...template.requestContext,
      http: { ...template.requestContext.http, method: request.method, path: rawPath },
      routeKey: request.routeKey,
      requestId: request.requestId ?? template.requestContext.requestId,
    },
    isBase64Encoded: false,
  };
  const query = queryStringParameters(rawQueryString);
  if (query) event.queryStringParameters = query;
  if (request.pathParameters && Object.keys(request.pathParameters).length) event.pathParameters = request.pathParameters;
  if (request.body !== undefined) event.body = request.body;
  if (cookie) event.cookies = cookie.split(';').map((c) => c.trim());
  return event;
}
