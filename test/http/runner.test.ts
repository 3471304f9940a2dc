import http from 'node:http';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { routes } from '../../handlers/routes';
import { COLLECTED_BODY_MAX_BYTES } from '../../handlers/middleware/responses';
import { useTestApp } from '../support/use-app';

const app = useTestApp();

describe('local runner over real HTTP', () => {
  it('serves health and the projects lifecycle with the CORS header on every response', async () => {
    const health = await app.http('GET', '/api/health');
    expect(health.status).toBe(200);
    expect(health.headers['access-control-allow-origin']).toBe('*');
    expect(health.headers['content-type']).toMatch(/application\/json/);

    const created = await app.http('POST', '/api/projects', { body: { name: 'Over HTTP' } });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect((await app.http('GET', `/api/projects/${id}`)).body.name).toBe('Over HTTP');
    expect((await app.http('PATCH', `/api/projects/${id}`, { body: { name: 'Renamed' } })).body.name).toBe('Renamed');
    expect((await app.http('DELETE', `/api/projects/${id}`)).body).toEqual({ deleted: true, id });
    const gone = await app.http('GET', `/api/projects/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.headers['access-control-allow-origin']).toBe('*');
  });

  it('sends a buffered answer with its byte length, not chunked, multi-byte text included', async () => {
    const created = await app.http('POST', '/api/projects', { body: { name: 'Größe ✓ 名前' } });
    expect(created.status).toBe(201);
    const read = await fetch(`${await app.baseUrl()}/api/projects/${created.body.id}`);
    const bytes = Buffer.from(await read.arrayBuffer());
    expect(read.headers.get('transfer-encoding')).toBeNull();
    expect(read.headers.get('content-length')).toBe(String(bytes.length));
    expect(JSON.parse(bytes.toString('utf8')).name).toBe('Größe ✓ 名前');
  });

  it('sends a streamed answer with the length its handler gave, once, and exactly that many bytes', async () => {
    await app.http('POST', '/api/projects', { body: { name: 'In the snapshot ✓' } });
    const created = await app.http('POST', '/api/snapshots', { body: { name: 'streamed' } });
    expect(created.status).toBe(201);
    const base = new URL(await app.baseUrl());
    // a raw response, so that a header written twice would show (fetch folds repeats into one value)
    const { rawHeaders, bytes } = await new Promise<{ rawHeaders: string[]; bytes: Buffer }>((resolve, reject) => {
      http
        .get({ host: base.hostname, port: base.port, path: `/api/snapshots/${created.body.snapshot_id}/download` }, (res) => {
          const parts: Buffer[] = [];
          res.on('data', (part: Buffer) => parts.push(part));
          res.on('end', () => resolve({ rawHeaders: res.rawHeaders, bytes: Buffer.concat(parts) }));
        })
        .on('error', reject);
    });
    const lengths = rawHeaders.filter((_v, i) => i % 2 === 0 && rawHeaders[i]!.toLowerCase() === 'content-length').length;
    const length = rawHeaders[rawHeaders.findIndex((h) => h.toLowerCase() === 'content-length') + 1];
    expect(lengths).toBe(1);
    expect(rawHeaders.map((h) => h.toLowerCase())).not.toContain('transfer-encoding');
    expect(Number(length)).toBe(bytes.length);
    expect(JSON.parse(bytes.toString('utf8')).manifest).toBeDefined();
  });

  it('sends an answer written as bytes (the board) with their length, once, not chunked, the text a direct call answers', async () => {
    const project = await app.http('POST', '/api/projects', { body: { name: 'Bytes ✓ 名前' } });
    for (const title of ['первая', 'second 𝄞', 'third "quoted" \\ back']) {
      expect((await app.http('POST', '/api/tasks', { body: { project_id: project.body.id, title, status: 'ready' } })).status).toBe(201);
    }
    const path = `/api/views/board?project_id=${project.body.id}`;
    const base = new URL(await app.baseUrl());
    const { rawHeaders, bytes } = await new Promise<{ rawHeaders: string[]; bytes: Buffer }>((resolve, reject) => {
      http
        .get({ host: base.hostname, port: base.port, path }, (res) => {
          const parts: Buffer[] = [];
          res.on('data', (part: Buffer) => parts.push(part));
          res.on('end', () => resolve({ rawHeaders: res.rawHeaders, bytes: Buffer.concat(parts) }));
        })
        .on('error', reject);
    });
    const names = rawHeaders.filter((_v, i) => i % 2 === 0).map((h) => h.toLowerCase());
    expect(names.filter((h) => h === 'content-length')).toHaveLength(1);
    expect(names).not.toContain('transfer-encoding');
    expect(names).toContain('access-control-allow-origin');
    expect(Number(rawHeaders[rawHeaders.findIndex((h) => h.toLowerCase() === 'content-length') + 1])).toBe(bytes.length);
    const direct = await app.call('GET', path);
    expect(direct.status).toBe(200);
    expect(bytes.toString('utf8')).toBe(direct.text);
    expect(JSON.parse(direct.text).columns.ready.map((t: { title: string }) => t.title)).toEqual(
      expect.arrayContaining(['первая', 'second 𝄞']),
    );
  });

  it('a board beyond what a Lambda response carries is 413 to an invoker that cannot stream, whole from the runner', async () => {
    const project = await app.http('POST', '/api/projects', { body: { name: 'Large board' } });
    await app.db.query(
      `INSERT INTO tasks (id, project_id, title, description, status) SELECT gen_random_uuid(), $1, 'large ' || g, repeat('é', 30000), 'ready' FROM generate_series(1, 100) g`,
      [project.body.id],
    );
    const path = `/api/views/board?project_id=${project.body.id}`;
    const refused = await app.call('GET', path);
    expect(refused.status).toBe(413);
    expect(refused.body).toMatchObject({ code: 'response_too_large', limit: COLLECTED_BODY_MAX_BYTES });
    const read = await fetch(`${await app.baseUrl()}${path}`);
    const bytes = Buffer.from(await read.arrayBuffer());
    expect(read.status).toBe(200);
    expect(bytes.length).toBeGreaterThan(COLLECTED_BODY_MAX_BYTES);
    expect(read.headers.get('content-length')).toBe(String(bytes.length));
    expect(JSON.parse(bytes.toString('utf8')).columns.ready).toHaveLength(100);
  });

  it('prefers static segments over parameters (/api/projects/default is not a project id)', async () => {
    await app.http('POST', '/api/projects', { body: { name: 'Any' } });
    const res = await app.http('GET', '/api/projects/default');
    expect(res.status).toBe(200);
    expect(res.body.task_counts).toBeDefined();
  });

  it('answers CORS preflight with 204, no auth, and the allowed headers', async () => {
    const res = await app.http('OPTIONS', '/api/projects/x', { headers: { 'access-control-request-method': 'PATCH' } });
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-headers']).toMatch(/Authorization/);
    expect(res.headers['access-control-allow-headers']).toMatch(/Content-Type/);
    expect(res.headers['access-control-allow-methods']).toMatch(/PATCH/);
  });

  it('answers HEAD wherever GET answers: the same status and headers, no body', async () => {
    const base = await app.baseUrl();
    const created = await app.http('POST', '/api/projects', { body: { name: 'Headed ✓' } });
    const head = (target: string, headers: Record<string, string> = {}) => fetch(`${base}${target}`, { method: 'HEAD', headers });
    const get = await fetch(`${base}/api/projects/${created.body.id}`);
    const headed = await head(`/api/projects/${created.body.id}`);
    expect(headed.status).toBe(200);
    expect(headed.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(headed.headers.get('content-length')).toBe(get.headers.get('content-length'));
    expect(Number(headed.headers.get('content-length'))).toBe(Buffer.byteLength(await get.text()));
    expect(await headed.text()).toBe('');
    // a public route, a missing row, a streamed answer (read no further than its first page), a route without GET
    expect((await head('/api/health')).status).toBe(200);
    const missing = await head('/api/projects/00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);
    expect(await missing.text()).toBe('');
    const all = await head('/api/tasks/all');
    expect(all.status).toBe(200);
    expect(all.headers.get('content-type')).toMatch(/application\/json/);
    expect(await all.text()).toBe('');
    expect((await head('/api/workflow-runs/dispatcher/tick')).status).toBe(404);
    const preflight = await app.http('OPTIONS', `/api/projects/${created.body.id}`);
    expect(preflight.headers['access-control-allow-methods']).toMatch(/\bHEAD\b/);
    // the request log and metrics name it HEAD, under the GET route
    const metrics = await app.http('GET', '/api/metrics');
    expect(metrics.text).toContain('fleet_http_requests_total{route="/api/projects/{id}",method="HEAD",status="200"}');
  });

  it('answers an unknown route or method with 404 JSON', async () => {
    const unknown = await app.http('GET', '/api/does-not-exist');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatch(/no route/);
    const wrongMethod = await app.http('PUT', '/api/health');
    expect(wrongMethod.status).toBe(404);
    expect(wrongMethod.body.error).toMatch(/GET/);
    expect((await app.http('GET', '/')).status).toBe(404);
  });

  it('answers malformed JSON with 400 and an oversized body with 413', async () => {
    const bad = await app.http('POST', '/api/projects', { raw: '{"name": "x",,}' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/JSON/);
    const huge = await app.http('POST', '/api/projects', { raw: JSON.stringify({ name: 'x', description: 'y'.repeat(2 * 1024 * 1024) }) });
    expect(huge.status).toBe(413);
    expect(huge.body.error).toMatch(/too large/);
  });

  it('accepts a JSON body sent with a form content type (curl -d)', async () => {
    const res = await app.http('POST', '/api/projects', {
      raw: '{"name":"From curl"}',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(201);
  });

  it('never answers garbage paths, methods and bodies with a 5xx', async () => {
    const paths = [...new Set(routes.map((r) => r.path))];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...paths),
        fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'PUT'),
        fc.oneof(fc.string(), fc.constantFrom('00000000-0000-4000-8000-000000000000', '%ZZ', '..', 'default')),
        fc.oneof(fc.string(), fc.json()),
        async (path, method, param, raw) => {
          const target = path.replace(/:[A-Za-z]+/g, encodeURIComponent(param) || 'x');
          const res = await app.http(method, target, { raw: method === 'GET' || method === 'DELETE' ? undefined : raw });
          // No runtime runs here: the spec answers a failed runtime call with 502 (or 500 for a cron run-now), deliberately.
          const runtimeAnswer = ['runtime_failed', 'execution_failed'].includes(res.body?.code);
          if (!runtimeAnswer) expect(res.status, `${method} ${target} ${raw}`).toBeLessThan(500);
          // spec 02 fixes some refusals as {available: false, reason} (unknown budget 404, no database 503)
          expect(typeof res.body?.error === 'string' || res.body?.available === false || res.status < 400).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });
});
