import http from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALL_TASKS_PAGE_ROWS } from '../../core/tasks/queries';
import { useTestApp } from '../support/use-app';

const app = useTestApp();
let projectA: string;
let projectB: string;

beforeAll(async () => {
  projectA = (await app.call('POST', '/api/projects', { body: { name: 'Stream A' } })).body.id;
  projectB = (await app.call('POST', '/api/projects', { body: { name: 'Stream B' } })).body.id;
  // one statement: thousands of tasks share created_at to the microsecond, so only the id orders
  // them; project B alone still spans more than a page
  await app.db.query(
    `INSERT INTO tasks (id, project_id, title) SELECT gen_random_uuid(), CASE WHEN g % 3 = 0 THEN $2::uuid ELSE $1::uuid END, 'same ' || g FROM generate_series(1, $3::int) g`,
    [projectA, projectB, 3 * ALL_TASKS_PAGE_ROWS + 500],
  );
  // and 300 that differ by single microseconds, which a JS Date cannot tell apart
  await app.db.query(
    `INSERT INTO tasks (id, project_id, title, created_at, updated_at)
     SELECT gen_random_uuid(), $1, 'micro ' || g, timestamptz '2030-01-01 00:00:00.001' + g * interval '1 microsecond', timestamptz '2030-01-01' FROM generate_series(1, 300) g`,
    [projectA],
  );
  await app.db.query(`UPDATE tasks SET deleted_at = now() WHERE title IN ('same 7', 'same 1500', 'micro 9')`);
});

async function expectedIds(where = 'TRUE', params: unknown[] = []): Promise<string[]> {
  const { rows } = await app.db.query<{ id: string }>(
    `SELECT id FROM tasks WHERE deleted_at IS NULL AND ${where} ORDER BY created_at, id`,
    params,
  );
  return rows.map((r) => r.id);
}

describe('GET /api/tasks/all across pages', () => {
  it('streams every live task once, in (created_at, id) order, over HTTP and through the handler alike', async () => {
    const expected = await expectedIds();
    expect(expected.length).toBeGreaterThan(2 * ALL_TASKS_PAGE_ROWS);
    const viaHttp = await app.http('GET', '/api/tasks/all');
    expect(viaHttp.status).toBe(200);
    expect(viaHttp.headers['content-type']).toMatch(/application\/json/);
    expect(viaHttp.body.map((t: { id: string }) => t.id)).toEqual(expected);
    expect(viaHttp.body[0]).toHaveProperty('title');
    const direct = await app.call('GET', '/api/tasks/all');
    expect(direct.text).toBe(viaHttp.text);
  });

  it('keeps the project and updated_since filters on every page', async () => {
    const onlyB = await app.http('GET', `/api/tasks/all?project_id=${projectB}`);
    expect(onlyB.body.length).toBeGreaterThan(ALL_TASKS_PAGE_ROWS);
    expect(onlyB.body.map((t: { id: string }) => t.id)).toEqual(await expectedIds('project_id = $1', [projectB]));
    const since = '2029-12-31T00:00:00Z';
    const recent = await app.http('GET', `/api/tasks/all?updated_since=${since}`);
    expect(recent.body).toHaveLength(299);
    expect(recent.body.map((t: { id: string }) => t.id)).toEqual(await expectedIds('updated_at >= $1', [since]));
  });

  it('lets a client go after the first bytes: the page read ahead is dropped, and the next listing is whole', async () => {
    const base = await app.baseUrl();
    const firstBytes = await new Promise<number>((resolve, reject) => {
      const req = http.get(`${base}/api/tasks/all`, (res) => {
        res.once('data', (chunk: Buffer) => {
          req.destroy();
          resolve(chunk.length);
        });
      });
      req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' ? undefined : reject(err)));
    });
    expect(firstBytes).toBeGreaterThan(0);
    // the listing after it reads every page, on a pool that got its connections back
    const again = await app.http('GET', '/api/tasks/all');
    expect(again.body.map((t: { id: string }) => t.id)).toEqual(await expectedIds());
  });

  it('answers an empty array for a listing with no rows, and 400 before streaming for a bad filter', async () => {
    const none = await app.http('GET', '/api/tasks/all?updated_since=2999-01-01');
    expect(none.status).toBe(200);
    expect(none.text).toBe('[]');
    const bad = await app.http('GET', '/api/tasks/all?updated_since=soon');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/updated_since/);
  });
});
