import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { routeKeyOf, type Route } from '../../handlers/route';

/** Query parameters as API Gateway v2 presents them: repeated keys joined with commas. */
function queryParameters(search: URLSearchParams): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const [key, value] of search) out[key] = key in out ? `${out[key]},${value}` : value;
  return Object.keys(out).length ? out : undefined;
}

/**
 * Builds the event a Lambda behind an HTTP API would receive, so the runner calls handlers
 * exactly as AWS does.
 */
export interface RawRequest {
  method: string;
  headers: Record<string, string | string[] | undefined>;
  sourceIp: string;
  httpVersion: string;
}

export function toApiGatewayEvent(input: {
  req: RawRequest;
  url: URL;
  route: Route;
  pathParameters: Record<string, string>;
  body: string | undefined;
  requestId: string;
}): APIGatewayProxyEventV2 {
  const { req, url, route } = input;
  const headers: Record<string, string> = {};
  for (const name in req.headers) {
    const value = req.headers[name];
    if (value === undefined || name === 'cookie') continue;
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const now = new Date();
  const routeKey = routeKeyOf(route);
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    cookies: typeof req.headers.cookie === 'string' ? req.headers.cookie.split(';').map((c) => c.trim()) : undefined,
    headers,
    queryStringParameters: url.search.length > 1 ? queryParameters(url.searchParams) : undefined,
    pathParameters: Object.keys(input.pathParameters).length ? input.pathParameters : undefined,
    requestContext: {
      accountId: 'local',
      apiId: 'local-runner',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'local',
      http: {
        method: req.method,
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: input.requestId,
      routeKey,
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    body: input.body,
    isBase64Encoded: false,
  };
}
