import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Context } from 'aws-lambda';
import pg from 'pg';
import { inject } from 'vitest';
import { routeKeyOf, routes } from '../../handlers/routes';
import { createAppContext, setAppContext, type AppContext } from '../../infra/app-context';
import { config, resetConfig } from '../../infra/config';
import { PgDb } from '../../infra/db/pg-db';
import { loadHandler } from '../../infra/http/load-handler';
import { RouteMatcher } from '../../infra/http/route-matcher';
import { startRunner, type Runner } from '../../infra/http/runner';
import { fixtureEvent } from './api-gateway-fixture';
import { assertDocumentedResponse } from './openapi-responses';
import { withDatabase } from './template-database';

export interface Reply {
  status: number;
  headers: Record<string, string>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
}

export interface RequestOptions {
  /** JSON-encoded unless `raw` is given. */
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
}

export interface TestApp {
  ctx: AppContext;
  /** Direct SQL on this file's database, for arranging and asserting state. */
  db: PgDb;
  databaseUrl: string;
  dataDir: string;
  /**
   * Calls the handler module of the matching route with an API Gateway v2 event, as Lambda would
   * (built from a recorded event by test/support/api-gateway-fixture.ts, not by the runner).
   * Every answer, here and from `http`, is held to the OpenAPI document (test/support/openapi-responses.ts).
   */
  call(method: string, path: string, options?: RequestOptions): Promise<Reply>;
  /** Sends a real HTTP request to the local runner (started on first use). */
  http(method: string, path: string, options?: RequestOptions): Promise<Reply>;
  baseUrl(): Promise<string>;
  close(): Promise<void>;
}

const matcher = new RouteMatcher(routes);

/** Clones the migrated template into a database of this test file's own. */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = inject('pgAdminUrl');
  const template = inject('pgTemplate');
  const name = `t_${template}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  for (let attempt = 0; ; attempt++) {
    try {
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
      break;
    } catch (err) {
      // Another file cloning the template at the same moment: try again shortly.
      if ((err as { code?: string }).code !== '55006' || attempt > 50) throw err;
      await new Promise((r) => setTimeout(r, 20 + Math.random() * 80));
    }
  }
  await admin.end();
  return {
    url: withDatabase(adminUrl, name),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

function toReply(status: number, headers: Record<string, string>, text: string): Reply {
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: leave the text
  }
  return { status, headers, body, text };
}

/**
 * A task server on a fresh database: handlers called in-process, and the runner over real HTTP.
 * `env` adds environment variables (DASHBOARD_AUTH_TOKEN, …) for this app.
 */
export async function startTestApp(options: { env?: Record<string, string> } = {}): Promise<TestApp> {
  const database = await createTestDatabase();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'task-server-app-'));
  for (const key of ['DASHBOARD_AUTH_TOKEN', 'HOST', 'PORT', 'OPENCLAW_GATEWAY_URL', 'OPENCLAW_GATEWAY_TOKEN', 'OPENCLAW_CONFIG_PATH'])
    delete process.env[key];
  Object.assign(process.env, { DATABASE_URL: database.url, DATA_DIR: dataDir, LOG_LEVEL: 'SILENT' }, options.env ?? {});
  resetConfig();
  const ctx = await createAppContext(config());
  setAppContext(ctx);
  const db = new PgDb(database.url, { max: 4 });
  let runner: Runner | undefined;

  const body = (o: RequestOptions) => (o.raw !== undefined ? o.raw : o.body === undefined ? undefined : JSON.stringify(o.body));

  const app: TestApp = {
    ctx,
    db,
    databaseUrl: database.url,
    dataDir,
    async call(method, target, o = {}) {
      const url = new URL(target, 'http://handler.test');
      const match = matcher.match(method, url.pathname);
      if (!match) throw new Error(`no route for ${method} ${url.pathname}`);
      const headers: Record<string, string> = { 'content-type': 'application/json', ...lower(o.headers ?? {}) };
      const event = fixtureEvent({
        method,
        target: `${url.pathname}${url.search}`,
        routeKey: routeKeyOf(match.route),
        pathParameters: match.pathParameters,
        headers,
        body: body(o),
        requestId: randomBytes(8).toString('hex'),
      });
      const handler = await loadHandler(match.route.handler);
      const result = await handler(event, { awsRequestId: 'test' } as Context);
      const outHeaders = Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
      const reply = toReply(result.statusCode ?? 200, outHeaders, result.body ?? '');
      assertDocumentedResponse(match.route, reply.status, reply.headers['content-type'], reply.body, {
        fallbackMode: ctx.deps.storage.mode === 'fallback',
      });
      return reply;
    },
    async baseUrl() {
      runner ??= await startRunner({ host: '127.0.0.1', port: 0, largeBodyLimit: config().restoreMaxBytes });
      return runner.url;
    },
    async http(method, target, o = {}) {
      const base = await app.baseUrl();
      const payload = body(o);
      const res = await fetch(`${base}${target}`, {
        method,
        headers: { ...(payload !== undefined ? { 'content-type': 'application/json' } : {}), ...(o.headers ?? {}) },
        body: payload,
      });
      const headers: Record<string, string> = {};
      res.headers.forEach((v, k) => (headers[k] = v));
      const reply = toReply(res.status, headers, await res.text());
      // the runner's own answers (a preflight, an unknown path, the static UI) belong to no route
      const match = method === 'OPTIONS' ? undefined : matcher.match(method, new URL(target, base).pathname);
      if (match)
        assertDocumentedResponse(match.route, reply.status, reply.headers['content-type'], reply.body, {
          fallbackMode: ctx.deps.storage.mode === 'fallback',
        });
      return reply;
    },
    async close() {
      await runner?.close();
      await db.close();
      await ctx.close();
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return app;
}

function lower(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}
