import { readFileSync } from 'node:fs';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { routeKeyOf, routes } from '../../handlers/routes';
import { toApiGatewayEvent } from '../../infra/http/api-gateway-event';
import { RouteMatcher } from '../../infra/http/route-matcher';
import { fixtureEvent } from '../support/api-gateway-fixture';
import { handler as getHealth } from '../../handlers/health/get-health';
import { handler as createProject } from '../../handlers/projects/create-project';
import { handler as getProject } from '../../handlers/projects/get-project';
import { handler as listProjects } from '../../handlers/projects/list-projects';
import { useTestApp } from '../support/use-app';

/**
 * Handlers invoked as Lambda invokes them, with API Gateway v2 events kept as files
 * (test/fixtures/api-gateway/), not built by the runner's own converter.
 */
const app = useTestApp();

function event(name: string): APIGatewayProxyEventV2 {
  return JSON.parse(readFileSync(new URL(`../fixtures/api-gateway/${name}.json`, import.meta.url), 'utf8')) as APIGatewayProxyEventV2;
}

type Handler = (e: APIGatewayProxyEventV2, c: Context) => Promise<APIGatewayProxyStructuredResultV2>;

async function invoke(h: Handler, name: string) {
  const result = await h(event(name), { awsRequestId: 'fixture' } as Context);
  return { status: result.statusCode, headers: result.headers ?? {}, body: JSON.parse(result.body ?? 'null') };
}

describe('handlers called with API Gateway v2 event fixtures', () => {
  it('GET /api/health answers 200 with the CORS header', async () => {
    const res = await invoke(getHealth as Handler, 'get-health');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
    expect(Object.keys(res.headers).map((h) => h.toLowerCase())).toContain('access-control-allow-origin');
  });

  it('POST /api/projects creates the project of the event body (201) and audits it', async () => {
    const res = await invoke(createProject as Handler, 'create-project');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'From an API Gateway event', tags: ['fixture'] });
    const { rows } = await app.db.query(`SELECT action FROM audit_log WHERE entity_type = 'project' AND entity_id = $1`, [res.body.id]);
    expect(rows).toEqual([{ action: 'created' }]);
  });

  it('a body that is not JSON is 400 malformed_json, writing nothing', async () => {
    const before = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM projects');
    const res = await invoke(createProject as Handler, 'create-project-malformed-body');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('malformed_json');
    expect((await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM projects')).rows[0]!.n).toBe(before.rows[0]!.n);
  });

  it('pathParameters reach the use case: an unknown project id is 404 not_found', async () => {
    const res = await invoke(getProject as Handler, 'get-project-unknown-id');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'not_found' });
    expect(res.body.error).toContain('3f1c2a9e-8d4b-4c6e-9a1f-2b7d5e0c8a41');
  });

  it('a repeated query key arrives comma-joined, as API Gateway sends it, and is refused 400 naming the parameter', async () => {
    const res = await invoke(listProjects as Handler, 'list-projects-repeated-status');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(JSON.stringify(res.body)).toContain('status');
  });
});

/** The fields a handler reads, from either builder. */
function handlerView(e: APIGatewayProxyEventV2) {
  return {
    routeKey: e.routeKey,
    rawPath: e.rawPath,
    rawQueryString: e.rawQueryString,
    queryStringParameters: e.queryStringParameters,
    pathParameters: e.pathParameters,
    body: e.body,
    isBase64Encoded: e.isBase64Encoded,
    method: e.requestContext.http.method,
    path: e.requestContext.http.path,
    contentType: e.headers['content-type'],
    authorization: e.headers.authorization,
    cookies: e.cookies,
  };
}

describe("the runner's converter (infra/http/api-gateway-event.ts) against the recorded event shape", () => {
  const matcher = new RouteMatcher(routes);
  const word = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/);
  const value = fc.string({ maxLength: 12 });

  it('builds what the fixture builder handler tests use builds, for any query (repeated keys too), path parameters, headers and body', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(
          'GET /api/tasks/all',
          'GET /api/projects/3f1c2a9e-8d4b-4c6e-9a1f-2b7d5e0c8a41',
          'POST /api/tasks',
          'PATCH /api/tasks/3f1c2a9e-8d4b-4c6e-9a1f-2b7d5e0c8a41',
        ),
        fc.array(fc.tuple(word, value), { maxLength: 5 }),
        fc.option(fc.json(), { nil: undefined }),
        fc.option(fc.string({ minLength: 1, maxLength: 20 }), { nil: undefined }),
        (request, pairs, body, token) => {
          const [method, pathname] = request.split(' ') as [string, string];
          const search = new URLSearchParams(pairs).toString();
          const url = new URL(`${pathname}${search ? `?${search}` : ''}`, 'http://runner.test');
          const match = matcher.match(method, url.pathname)!;
          const headers: Record<string, string> = {
            'content-type': 'application/json',
            ...(token ? { authorization: `Bearer ${token}` } : {}),
            cookie: 'a=1; b=2',
          };
          const converted = toApiGatewayEvent({
            req: { method, headers, sourceIp: '127.0.0.1', httpVersion: '1.1' },
            url,
            route: match.route,
            pathParameters: match.pathParameters,
            body,
            requestId: 'r',
          });
          const recorded = fixtureEvent({
            method,
            target: `${url.pathname}${url.search}`,
            routeKey: routeKeyOf(match.route),
            pathParameters: match.pathParameters,
            headers,
            body,
          });
          expect(handlerView(converted)).toEqual(handlerView(recorded));
        },
      ),
      { numRuns: 200 },
    );
  });
});
