import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as listProjects } from '../../handlers/projects/list-projects';
import { routes as projectRoutes } from '../../handlers/projects/routes';
import { handler as health } from '../../handlers/health/get-health';
import { routes as healthRoutes } from '../../handlers/health/routes';
import { resetConfig } from '../../infra/config';
import { forgetSecretParameters } from '../../infra/secrets/secret-parameters';
import { areaRouter } from '../../infra/lambda/area-router';
import { createTestDatabase } from '../support/test-app';

/**
 * A deployment that names its secrets by SSM parameter (DASHBOARD_AUTH_TOKEN_SSM, DATABASE_URL_SSM)
 * instead of putting them in its template: the Lambda reads them at cold start from SSM (here a fake
 * SSM endpoint speaking the JSON protocol, reached through AWS_ENDPOINT_URL_SSM as the SDK allows).
 */
const parameters = new Map<string, string>();
const asked: string[] = [];
let ssm: http.Server;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
const saved = { ...process.env };

beforeAll(async () => {
  database = await createTestDatabase();
  ssm = http.createServer(async (req, res) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    const { Name, WithDecryption } = JSON.parse(text) as { Name: string; WithDecryption: boolean };
    asked.push(`${req.headers['x-amz-target']} ${Name} ${WithDecryption}`);
    const value = parameters.get(Name);
    res.setHeader('content-type', 'application/x-amz-json-1.1');
    if (value === undefined) {
      res.statusCode = 400;
      res.end(JSON.stringify({ __type: 'ParameterNotFound', message: `${Name} not found` }));
      return;
    }
    res.end(JSON.stringify({ Parameter: { Name, Type: 'SecureString', Value: value, Version: 1 } }));
  });
  await new Promise<void>((r) => ssm.listen(0, '127.0.0.1', r));
  for (const key of ['DATABASE_URL', 'DASHBOARD_AUTH_TOKEN']) delete process.env[key];
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_SSM: `http://127.0.0.1:${(ssm.address() as AddressInfo).port}`,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test-key',
    AWS_SECRET_ACCESS_KEY: 'test-secret',
    DASHBOARD_AUTH_TOKEN_SSM: '/fleet/test/token',
    DATABASE_URL_SSM: '/fleet/test/database-url',
    LOG_LEVEL: 'SILENT',
  });
  resetConfig();
  forgetSecretParameters();
});

afterAll(async () => {
  const { appContext } = await import('../../infra/app-context');
  await (await appContext().catch(() => undefined))?.close();
  process.env = saved;
  resetConfig();
  await new Promise<void>((r) => ssm.close(() => r()));
  await database?.drop();
});

// two areas' handlers behind one router, with their rows (GET /api/health's says it is public)
const handlers = { 'projects/list-projects': listProjects, 'health/get-health': health };
const route = areaRouter(
  [...projectRoutes, ...healthRoutes].filter((r) => r.handler in handlers),
  handlers,
);
const event = (routeKey: string, token?: string) =>
  ({
    routeKey,
    rawPath: routeKey.split(' ')[1],
    headers: token ? { authorization: `Bearer ${token}` } : {},
    requestContext: { requestId: 'offlineContext_resourceId', http: { method: 'GET' } },
    isBase64Encoded: false,
  }) as unknown as APIGatewayProxyEventV2;
const invoke = async (routeKey: string, token?: string) => {
  const res = await route(event(routeKey, token), { awsRequestId: 'lambda' } as Context);
  return { status: res.statusCode, body: JSON.parse(res.body ?? '{}'), requestId: res.headers?.['x-request-id'] };
};

describe('secrets read from SSM at cold start', () => {
  it('answers 503 secrets_unavailable, naming the parameter but no value, while a parameter is missing; even public routes wait', async () => {
    parameters.set('/fleet/test/token', 'token-from-ssm');
    const res = await invoke('GET /api/projects', 'token-from-ssm');
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('secrets_unavailable');
    expect(res.body.error).toMatch(/DATABASE_URL could not be read from SSM parameter \/fleet\/test\/database-url: ParameterNotFound/);
    expect(JSON.stringify(res.body)).not.toContain('token-from-ssm');
    expect((await invoke('GET /api/health')).status).toBe(503);
  });

  it('reads both parameters with decryption once the second exists, then enforces the token from SSM', async () => {
    parameters.set('/fleet/test/database-url', database.url);
    expect((await invoke('GET /api/projects')).status).toBe(401);
    expect((await invoke('GET /api/projects', 'wrong')).status).toBe(401);
    const ok = await invoke('GET /api/projects', 'token-from-ssm');
    expect(ok.status).toBe(200);
    expect(asked).toContain('AmazonSSM.GetParameter /fleet/test/database-url true');
    expect(asked).toContain('AmazonSSM.GetParameter /fleet/test/token true');
  });

  it('reads them only once per process (cached after the cold start)', async () => {
    const before = asked.length;
    for (let i = 0; i < 3; i++) expect((await invoke('GET /api/projects', 'token-from-ssm')).status).toBe(200);
    expect(asked.length).toBe(before);
  });

  it("gives each request its own id when the event carries serverless-offline's placeholder", async () => {
    const ids = new Set<unknown>();
    for (let i = 0; i < 3; i++) ids.add((await invoke('GET /api/projects', 'token-from-ssm')).requestId);
    expect(ids.size).toBe(3);
    expect([...ids].some((id) => String(id).startsWith('offlineContext_'))).toBe(false);
  });
});
