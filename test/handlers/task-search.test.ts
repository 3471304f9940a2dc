import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../support/use-app';
import { fakeTime } from './workflow-support';

/** GET /api/tasks/search: the console palette's finder over every task (docs/console-api.md). */
const app = useTestApp();
const UNKNOWN = '00000000-0000-4000-8000-000000000000';
let alpha: string;
let beta: string;
let clock: ReturnType<typeof fakeTime>;

async function task(project: string, title: string, fields: Record<string, unknown> = {}) {
  clock.advance(1000);
  const res = await app.call('POST', '/api/tasks', { body: { project_id: project, title, ...fields } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; title: string; updated_at: string };
}

const search = (query: string) => app.call('GET', `/api/tasks/search?${query}`);
const titles = (body: { tasks: Array<{ title: string }> }) => body.tasks.map((t) => t.title);

beforeAll(async () => {
  clock = fakeTime(app, '2026-11-01T12:00:00.000Z');
  alpha = (await app.call('POST', '/api/projects', { body: { name: 'Alpha' } })).body.id;
  beta = (await app.call('POST', '/api/projects', { body: { name: 'Beta' } })).body.id;
});

describe('GET /api/tasks/search', () => {
  it('finds titles holding q anywhere, whatever the case, in every project, with the project named', async () => {
    const a = await task(alpha, 'Rotate the Gateway keys');
    const b = await task(beta, 'gateway timeouts on deploy');
    await task(alpha, 'Unrelated chore');
    const res = await search('q=GATEWAY');
    expect(res.status).toBe(200);
    expect(res.body.tasks).toHaveLength(2);
    // the title starting with q comes before the more recently updated one holding it further in
    expect(res.body.tasks.map((t: { id: string }) => t.id)).toEqual([b.id, a.id]);
    expect(res.body.tasks[0]).toEqual({
      id: b.id,
      title: 'gateway timeouts on deploy',
      status: 'backlog',
      priority: 'medium',
      owner: null,
      project_id: beta,
      project_name: 'Beta',
      updated_at: b.updated_at,
    });
  });

  it('puts the task whose id is q first, then an exact title, then prefixes, then the most recently updated', async () => {
    const older = await task(alpha, 'zebra crossing audit');
    const exact = await task(alpha, 'Zebra');
    const prefix = await task(alpha, 'zebra stripes');
    const inner = await task(alpha, 'the last zebra');
    expect((await search('q=zebra')).body.tasks.map((t: { id: string }) => t.id)).toEqual([exact.id, prefix.id, older.id, inner.id]);
    const byId = await search(`q=${older.id.toUpperCase()}`);
    expect(byId.body.tasks.map((t: { id: string }) => t.id)).toEqual([older.id]);
  });

  it('takes limit (default 20) and keeps the most recently updated of the same rank', async () => {
    const made = [];
    for (let i = 0; i < 23; i++) made.push(await task(beta, `bulk item ${i}`));
    expect((await search('q=bulk%20item')).body.tasks).toHaveLength(20);
    const two = await search('q=bulk%20item&limit=2');
    expect(two.body.tasks.map((t: { id: string }) => t.id)).toEqual([made[22]!.id, made[21]!.id]);
    expect((await search('q=bulk%20item&limit=50')).body.tasks).toHaveLength(23);
  });

  it('keeps to the named project', async () => {
    await task(alpha, 'shared word quokka');
    const inBeta = await task(beta, 'another quokka');
    expect(titles((await search('q=quokka')).body)).toHaveLength(2);
    const only = await search(`q=quokka&project_id=${beta}`);
    expect(only.body.tasks.map((t: { id: string }) => t.id)).toEqual([inBeta.id]);
  });

  it('never finds a deleted task, and finds an archived one', async () => {
    const gone = await task(alpha, 'marmot to delete');
    const kept = await task(alpha, 'marmot to archive');
    expect((await app.call('DELETE', `/api/tasks/${gone.id}`)).status).toBe(200);
    expect((await app.call('POST', `/api/tasks/${kept.id}/archive`)).status).toBe(200);
    expect((await search('q=marmot')).body.tasks.map((t: { id: string }) => t.id)).toEqual([kept.id]);
    expect((await search(`q=${gone.id}`)).body.tasks).toEqual([]);
  });

  it('takes %, _ and \\ in q literally', async () => {
    const pct = await task(alpha, 'done 100% of it');
    await task(alpha, 'done 1000 of it');
    await task(alpha, 'a_b literal');
    await task(alpha, 'axb literal');
    const back = await task(alpha, 'path c:\\temp');
    expect((await search(`q=${encodeURIComponent('100%')}`)).body.tasks.map((t: { id: string }) => t.id)).toEqual([pct.id]);
    expect(titles((await search(`q=${encodeURIComponent('a_b')}`)).body)).toEqual(['a_b literal']);
    expect((await search(`q=${encodeURIComponent('c:\\t')}`)).body.tasks.map((t: { id: string }) => t.id)).toEqual([back.id]);
  });

  it('finds a task by any piece of its title (property)', async () => {
    const project = (await app.call('POST', '/api/projects', { body: { name: 'Property' } })).body.id as string;
    await fc.assert(
      fc.asyncProperty(
        fc
          .string({ minLength: 1, maxLength: 40, unit: fc.constantFrom('a', 'B', 'é', ' ', '%', '_', '\\', 'z', 'Ж', '7') })
          .filter((s) => s.trim().length > 0),
        fc.nat(),
        fc.nat(),
        async (title, from, length) => {
          const made = await task(project, title);
          const start = from % title.length;
          const piece = title.slice(start, start + 1 + (length % (title.length - start)));
          if (piece.trim().length === 0) return;
          const res = await search(`q=${encodeURIComponent(piece)}&project_id=${project}&limit=50`);
          expect(res.status).toBe(200);
          for (const hit of res.body.tasks) expect(hit.title.toLowerCase()).toContain(piece.trim().toLowerCase());
          const all = await app.db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM tasks WHERE project_id = $1 AND deleted_at IS NULL AND strpos(lower(title), lower($2)) > 0`,
            [project, piece.trim()],
          );
          expect(res.body.tasks).toHaveLength(Math.min(50, all.rows[0]!.n));
          if (all.rows[0]!.n <= 50) expect(res.body.tasks.map((t: { id: string }) => t.id)).toContain(made.id);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('answers over HTTP through the runner the same', async () => {
    const made = await task(beta, 'runner pangolin');
    const res = await app.http('GET', '/api/tasks/search?q=pangolin');
    expect(res.status).toBe(200);
    expect(res.body.tasks.map((t: { id: string }) => t.id)).toEqual([made.id]);
  });

  it.each([
    ['', /q/],
    ['q=', /q/],
    ['q=%20%20', /q/],
    [`q=${'x'.repeat(201)}`, /q/],
    ['q=a&limit=0', /limit/],
    ['q=a&limit=51', /limit/],
    ['q=a&limit=ten', /limit/],
    ['q=a&project_id=not-a-uuid', /project_id/],
  ])('refuses ?%s with 400 naming the field', async (query, field) => {
    const res = await search(query);
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual(expect.any(String));
    expect(JSON.stringify(res.body)).toMatch(field);
  });

  it('accepts q of exactly 200 characters, and answers 404 for an unknown project', async () => {
    expect((await search(`q=${'y'.repeat(200)}`)).status).toBe(200);
    const res = await search(`q=a&project_id=${UNKNOWN}`);
    expect(res.status).toBe(404);
    expect(res.body.error).toMatch(UNKNOWN);
  });
});
