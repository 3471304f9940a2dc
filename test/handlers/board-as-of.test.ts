import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../support/use-app';
import { fakeTime } from './workflow-support';

/** GET /api/views/board/as-of: the board as it stood at an instant, from the tasks' state snapshots (docs/console-api.md). */
const app = useTestApp();
const UNKNOWN = '00000000-0000-4000-8000-000000000000';
let clock: ReturnType<typeof fakeTime>;
let project: string;

async function task(fields: Record<string, unknown>) {
  clock.advance(1000);
  const res = await app.call('POST', '/api/tasks', { body: { project_id: project, ...fields } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; title: string };
}

async function change(method: string, path: string, body?: unknown) {
  clock.advance(1000);
  const res = await app.call(method, path, { body });
  expect(res.status, `${method} ${path} ${JSON.stringify(res.body)}`).toBe(200);
  return res.body;
}

type Board = { columns: Record<string, Array<{ id: string; title: string; status: string }>> };
const idsByColumn = (board: Board) => Object.fromEntries(Object.entries(board.columns).map(([c, tasks]) => [c, tasks.map((t) => t.id)]));
const asOf = (at: string, extra = '') =>
  app.call('GET', `/api/views/board/as-of?project_id=${project}&at=${encodeURIComponent(at)}${extra}`);

beforeAll(async () => {
  clock = fakeTime(app, '2026-11-01T12:00:00.000Z');
  project = (await app.call('POST', '/api/projects', { body: { name: 'Time travel' } })).body.id;
});

describe('GET /api/views/board/as-of', () => {
  it('shows each task as it stood at `at`: moved since in its old column, created since absent, deleted since present', async () => {
    const moved = await task({ title: 'moved later', status: 'backlog' });
    const renamed = await task({ title: 'old title', status: 'ready', priority: 'high' });
    const deletedLater = await task({ title: 'deleted later', status: 'ready' });
    const deletedBefore = await task({ title: 'deleted before', status: 'ready' });
    const archivedBefore = await task({ title: 'archived before', status: 'review' });
    await change('DELETE', `/api/tasks/${deletedBefore.id}`);
    await change('POST', `/api/tasks/${archivedBefore.id}/archive`);
    clock.advance(1000);
    const at = clock.now().toISOString();
    await change('POST', `/api/tasks/${moved.id}/move`, { status: 'in_progress' });
    await change('PATCH', `/api/tasks/${renamed.id}`, { title: 'new title' });
    await change('DELETE', `/api/tasks/${deletedLater.id}`);
    const createdLater = await task({ title: 'created later', status: 'ready' });

    const then = await asOf(at);
    expect(then.status).toBe(200);
    expect(then.body.as_of).toBe(at);
    expect(then.body.project.id).toBe(project);
    expect(idsByColumn(then.body)).toEqual({
      backlog: [moved.id],
      ready: [renamed.id, deletedLater.id],
      in_progress: [],
      blocked: [],
      review: [],
      completed: [],
    });
    expect(then.body.columns.ready[0]).toMatchObject({ title: 'old title', status: 'ready', priority: 'high' });

    const now = await app.call('GET', `/api/views/board?project_id=${project}`);
    expect(idsByColumn(now.body)).toEqual({
      backlog: [],
      ready: [renamed.id, createdLater.id],
      in_progress: [moved.id],
      blocked: [],
      review: [],
      completed: [],
    });
  });

  it('answers at the present instant the live board, task for task and field for field', async () => {
    const other = await task({
      title: 'with details',
      status: 'blocked',
      owner: 'ops',
      labels: ['a', 'b'],
      due_date: '2026-12-01',
      metadata: { note: 'n' },
    });
    await change('PATCH', `/api/tasks/${other.id}`, { priority: 'critical', description: 'more' });
    const live = await app.call('GET', `/api/views/board?project_id=${project}`);
    const then = await asOf(clock.now().toISOString());
    const { as_of, ...board } = then.body;
    expect(as_of).toBe(clock.now().toISOString());
    expect(board).toEqual(live.body);
  });

  it("uses the default project when none is named, and leaves other projects' tasks out", async () => {
    const elsewhere = (await app.call('POST', '/api/projects', { body: { name: 'Elsewhere' } })).body.id as string;
    clock.advance(1000);
    const stray = await app.call('POST', '/api/tasks', { body: { project_id: elsewhere, title: 'not on this board', status: 'ready' } });
    const at = clock.now().toISOString();
    const named = await asOf(at);
    expect(Object.values(idsByColumn(named.body)).flat()).not.toContain(stray.body.id);
    const byDefault = await app.call('GET', `/api/views/board/as-of?at=${encodeURIComponent(at)}`);
    expect(byDefault.status).toBe(200);
    expect(byDefault.body).toEqual(named.body);
    const theirs = await app.call('GET', `/api/views/board/as-of?project_id=${elsewhere}&at=${encodeURIComponent(at)}`);
    expect(idsByColumn(theirs.body).ready).toEqual([stray.body.id]);
  });

  it('answers an empty board before the first task, and redacts secret-keyed metadata as every snapshot reader does', async () => {
    const before = await asOf('2026-11-01T11:00:00.000Z');
    expect(Object.values(idsByColumn(before.body)).flat()).toEqual([]);
    const secret = await task({ title: 'holds a key', status: 'review', metadata: { api_key: 'sk-live-123', plain: 'x' } });
    const then = await asOf(clock.now().toISOString());
    const found = then.body.columns.review.find((t: { id: string }) => t.id === secret.id);
    expect(found.metadata).toEqual({ api_key: '[REDACTED]', plain: 'x' });
    expect(then.text).not.toContain('sk-live-123');
  });

  it('refuses a missing, malformed or future `at` with 400 naming it, a bad project_id with 400 and an unknown project with 404', async () => {
    for (const query of [
      '',
      'at=',
      'at=yesterday',
      'at=2026-13-01T00:00:00Z',
      `at=${encodeURIComponent(new Date(clock.now().getTime() + 1000).toISOString())}`,
      'at=9999-01-01',
    ]) {
      const res = await app.call('GET', `/api/views/board/as-of?project_id=${project}&${query}`);
      expect(res.status, query).toBe(400);
      expect(JSON.stringify(res.body), query).toMatch(/\bat\b/);
    }
    const bad = await app.call('GET', `/api/views/board/as-of?project_id=nope&at=2026-11-01T12:00:00Z`);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toMatch(/project_id/);
    const unknown = await app.call('GET', `/api/views/board/as-of?project_id=${UNKNOWN}&at=2026-11-01T12:00:00Z`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatch(UNKNOWN);
  });

  it('answers over HTTP through the runner the same', async () => {
    const at = clock.now().toISOString();
    const viaRunner = await app.http('GET', `/api/views/board/as-of?project_id=${project}&at=${encodeURIComponent(at)}`);
    expect(viaRunner.status).toBe(200);
    expect(viaRunner.body).toEqual((await asOf(at)).body);
  });
});
