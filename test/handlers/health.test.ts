import { describe, expect, it } from 'vitest';
import { routes } from '../../handlers/routes';
import { useTestApp } from '../support/use-app';

const app = useTestApp();

describe('GET /api/health', () => {
  it('reports the storage backend, a measured latency, uptime and port', async () => {
    const res = await app.call('GET', '/api/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'ok',
      task_storage: 'database',
      storage_type: 'postgresql',
      storage_mode: 'external',
      storage_note: null,
      port: 3876,
    });
    expect(res.body.storage_label).toMatch(/^PostgreSQL \d+/);
    expect(res.body.db_latency_ms).toBeGreaterThanOrEqual(0);
    expect(typeof res.body.uptime).toBe('number');
    expect(Date.parse(res.body.timestamp)).not.toBeNaN();
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('GET /api/stats', () => {
  it('counts projects, live tasks and completed tasks', async () => {
    const project = await app.call('POST', '/api/projects', { body: { name: 'Stats' } });
    await app.db.query(
      `INSERT INTO tasks (id, project_id, title, status, deleted_at) VALUES
        (gen_random_uuid(), $1, 'a', 'completed', NULL), (gen_random_uuid(), $1, 'b', 'ready', NULL),
        (gen_random_uuid(), $1, 'gone', 'completed', now())`,
      [project.body.id],
    );
    const res = await app.call('GET', '/api/stats');
    expect(res.status).toBe(200);
    const { rows } = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM projects');
    expect(res.body).toEqual({ projects: rows[0]!.n, tasks: 2, completed: 1 });
  });
});

describe('GET /api/health-status', () => {
  it('reports the database healthy and the not-yet-connected gateway honestly as unavailable', async () => {
    const res = await app.call('GET', '/api/health-status');
    expect(res.status).toBe(200);
    expect(res.body.database).toEqual({ status: 'connected', healthy: true, mode: 'database' });
    expect(res.body.gateway).toMatchObject({ status: 'unavailable', healthy: false, agent_count: 0 });
    expect(res.body.task_server).toEqual({ healthy: true, status: 'running' });
    expect(res.body.checks.gateway_sync).toEqual({ healthy: false, status: 'unavailable', count: 0 });
    expect(res.body.checks.database.healthy).toBe(true);
    expect(res.body.status).toBe('degraded');
  });
});

describe('GET /api/routes', () => {
  it('lists exactly the route table', async () => {
    const res = await app.call('GET', '/api/routes');
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(routes.length);
    expect(res.body.routes).toEqual(routes.map((r) => ({ method: r.method, path: r.path })));
  });
});

describe('GET /api/auth/self without a configured token', () => {
  it('describes single-operator bearer mode with deferred full auth', async () => {
    const res = await app.call('GET', '/api/auth/self');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      authenticated: true,
      mode: 'token',
      actor: 'dashboard-operator',
      role: 'operator',
      tokenRequired: false,
      supportedSchemes: ['bearer-token'],
      publicRoutes: ['/api/health', '/api/auth/self'],
      capabilities: { bearerToken: true, singleOperator: true, sessions: false, rbac: false, multiOperator: false },
      deferred: { fullAuth: true },
    });
    expect(typeof res.body.deferred.until).toBe('string');
    expect(typeof res.body.deferred.reason).toBe('string');
  });
});

describe('GET /api/openapi.json', () => {
  it('serves the generated OpenAPI 3.1 document, listing itself, over HTTP and through the handler', async () => {
    const viaHttp = await app.http('GET', '/api/openapi.json');
    expect(viaHttp.status).toBe(200);
    expect(viaHttp.body.openapi).toBe('3.1.0');
    expect(viaHttp.body.paths['/api/openapi.json'].get).toBeDefined();
    expect((await app.call('GET', '/api/openapi.json')).body).toEqual(viaHttp.body);
  });
});
