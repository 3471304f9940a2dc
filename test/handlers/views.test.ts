import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../support/use-app';

const app = useTestApp();
let defaultProject: string;
let otherProject: string;
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  defaultProject = (await app.call('POST', '/api/projects', { body: { name: 'First (default)' } })).body.id;
  otherProject = (await app.call('POST', '/api/projects', { body: { name: 'Second' } })).body.id;
});

async function task(fields: Record<string, unknown>) {
  const res = await app.call('POST', '/api/tasks', { body: { project_id: otherProject, title: 't', ...fields } });
  expect(res.status).toBe(201);
  return res.body as Record<string, any>;
}

describe('saved views', () => {
  it('creates, reads, patches and deletes a view, auditing each change', async () => {
    const created = await app.call('POST', '/api/views', {
      body: {
        project_id: otherProject,
        name: 'Overdue',
        filters: { filter: 'overdue', search: 'api', sort: 'newest' },
        sort: 'updated',
        created_by: 'ops',
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      project_id: otherProject,
      name: 'Overdue',
      filters: { filter: 'overdue', search: 'api', sort: 'newest' },
      sort: 'updated',
      created_by: 'ops',
    });
    const id = created.body.id;
    expect((await app.call('GET', `/api/views/${id}`)).body.name).toBe('Overdue');
    const patched = await app.call('PATCH', `/api/views/${id}`, {
      body: { name: 'Late', filters: { categoryFilter: 'infra' }, sort: null },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Late', filters: { categoryFilter: 'infra' }, sort: null });
    expect((await app.call('DELETE', `/api/views/${id}`)).body).toEqual({ deleted: true, id });
    expect((await app.call('GET', `/api/views/${id}`)).status).toBe(404);
    expect((await app.call('PATCH', `/api/views/${id}`, { body: { name: 'x' } })).status).toBe(404);
    expect((await app.call('DELETE', `/api/views/${id}`)).status).toBe(404);
    const audit = await app.db.query(
      `SELECT action, project_id FROM audit_log WHERE entity_type = 'saved_view' AND entity_id = $1 ORDER BY id`,
      [id],
    );
    expect(audit.rows).toEqual(['created', 'updated', 'deleted'].map((action) => ({ action, project_id: otherProject })));
  });

  it('lists the views of the named project, or of the default project when none is named', async () => {
    const mine = await app.call('POST', '/api/views', { body: { name: 'Default one' } });
    expect(mine.body.project_id).toBe(defaultProject);
    const other = await app.call('POST', '/api/views', { body: { project_id: otherProject, name: 'Other one' } });
    const defaults = await app.call('GET', '/api/views');
    expect(defaults.body.map((v: { id: string }) => v.id)).toEqual([mine.body.id]);
    const named = await app.call('GET', `/api/views?project_id=${otherProject}`);
    expect(named.body.map((v: { id: string }) => v.id)).toContain(other.body.id);
    expect((await app.call('GET', `/api/views?project_id=${UNKNOWN}`)).status).toBe(404);
    expect((await app.call('GET', '/api/views?project_id=x')).status).toBe(400);
  });

  it('validates filter keys and values, naming the offender', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ name: 'x', filters: { filter: 'soon' } }, /filter/],
      [{ name: 'x', filters: { sort: 'random' } }, /sort/],
      [{ name: 'x', filters: { colour: 'red' } }, /colour/],
      [{ name: 'x', filters: { search: 7 } }, /search/],
      [{ name: 'x', filters: [] }, /filters/],
      [{ name: 'x', sort: 'sideways' }, /sort/],
      [{ filters: {} }, /name/],
      [{ name: 'x', project_id: UNKNOWN }, /not found/],
    ];
    for (const [body, message] of cases) {
      const res = await app.call('POST', '/api/views', { body });
      expect(res.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.body.error).toMatch(message);
    }
    const view = await app.call('POST', '/api/views', { body: { name: 'ok' } });
    const bad = await app.call('PATCH', `/api/views/${view.body.id}`, { body: { filters: { filter: 'nope' } } });
    expect(bad.status).toBe(400);
    expect((await app.call('PATCH', `/api/views/${view.body.id}`, { body: {} })).status).toBe(400);
    expect((await app.call('PATCH', `/api/views/${view.body.id}`, { body: { project_id: otherProject } })).status).toBe(400);
  });

  it('never answers 5xx to random view bodies', async () => {
    const view = await app.call('POST', '/api/views', { body: { name: 'fuzzed' } });
    const body = fc.oneof(
      fc.record(
        {
          name: fc.oneof(fc.string(), fc.integer()),
          filters: fc.dictionary(fc.constantFrom('filter', 'search', 'sort', 'x'), fc.oneof(fc.string(), fc.constantFrom('all', 'alpha'))),
        },
        { requiredKeys: [] },
      ),
      fc.anything(),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(['POST', '/api/views'], ['PATCH', `/api/views/${view.body.id}`]),
        body,
        async ([method, path], b) => {
          const res = await app.call(method, path, { body: b });
          expect(res.status).toBeLessThan(500);
          if (res.status >= 400) expect(typeof res.body.error).toBe('string');
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('built-in views', () => {
  it('board: the project, its workflow and six status columns of live, unarchived tasks, most urgent first', async () => {
    const low = await task({ status: 'ready', priority: 'low' });
    const critical = await task({ status: 'ready', priority: 'critical' });
    const review = await task({ status: 'review' });
    const archived = await task({ status: 'ready' });
    await app.call('POST', `/api/tasks/${archived.id}/archive`);
    const deleted = await task({ status: 'ready' });
    await app.call('DELETE', `/api/tasks/${deleted.id}`);
    await task({ status: 'drafting' });
    const res = await app.call('GET', `/api/views/board?project_id=${otherProject}`);
    expect(res.status).toBe(200);
    expect(res.body.project.id).toBe(otherProject);
    expect(res.body.workflow).toEqual({
      id: null,
      name: 'Default',
      states: ['backlog', 'ready', 'in_progress', 'blocked', 'review', 'completed'],
    });
    expect(Object.keys(res.body.columns)).toEqual(['backlog', 'ready', 'in_progress', 'blocked', 'review', 'completed']);
    expect(res.body.columns.ready.map((t: { id: string }) => t.id)).toEqual([critical.id, low.id]);
    expect(res.body.columns.review.map((t: { id: string }) => t.id)).toEqual([review.id]);
    const ids = Object.values(res.body.columns)
      .flat()
      .map((t: any) => t.id);
    expect(ids).not.toContain(archived.id);
    expect(ids).not.toContain(deleted.id);
  });

  it('board: uses the project default workflow, and the default project when none is named; 404 unknown project', async () => {
    const wf = '33333333-3333-4333-8333-333333333333';
    await app.db.query(`INSERT INTO workflows (id, name, states) VALUES ($1, 'Editorial', '["draft","live"]')`, [wf]);
    await app.call('PATCH', `/api/projects/${defaultProject}`, { body: { default_workflow_id: wf } });
    const res = await app.call('GET', '/api/views/board');
    expect(res.body.project.id).toBe(defaultProject);
    expect(res.body.workflow).toMatchObject({ id: wf, name: 'Editorial', states: ['draft', 'live'] });
    expect((await app.call('GET', `/api/views/board?project_id=${UNKNOWN}`)).status).toBe(404);
    const ignored = await app.call('GET', '/api/views/board?nonsense=1');
    expect(ignored.status).toBe(200);
    expect(ignored.headers['x-ignored-params']).toBe('nonsense');
  });

  it('board with limit_per_column: the first tasks of each column in the board’s order, every column’s count, the status of the dependencies left out', async () => {
    const project = (await app.call('POST', '/api/projects', { body: { name: 'First screenful' } })).body.id as string;
    const mk = async (fields: Record<string, unknown>) => {
      const res = await app.call('POST', '/api/tasks', { body: { project_id: project, title: 't', ...fields } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id as string;
    };
    const done = [await mk({ status: 'completed', priority: 'high' }), await mk({ status: 'completed', priority: 'low' })];
    const readyLow = await mk({ status: 'ready', priority: 'low' });
    const readyCritical = await mk({ status: 'ready', priority: 'critical' });
    await mk({ status: 'ready', priority: 'medium' });
    // the first of the backlog waits on a completed task and a ready one, neither in the answer; the second on one that is
    const waiting = await mk({ status: 'backlog', priority: 'critical', dependency_ids: [done[1], readyLow, readyCritical] });
    await mk({ status: 'backlog', priority: 'low', dependency_ids: [waiting] });
    const archived = await mk({ status: 'review' });
    expect((await app.call('POST', `/api/tasks/${archived}/archive`)).status).toBe(200);
    const deleted = await mk({ status: 'review' });
    expect((await app.call('DELETE', `/api/tasks/${deleted}`)).status).toBe(200);
    await mk({ status: 'drafting' });

    const whole = await app.call('GET', `/api/views/board?project_id=${project}`);
    const first = await app.call('GET', `/api/views/board?project_id=${project}&limit_per_column=1`);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(Object.keys(first.body)).toEqual(['project', 'workflow', 'columns', 'counts', 'dependency_statuses']);
    expect(first.body.project).toEqual(whole.body.project);
    expect(first.body.workflow).toEqual(whole.body.workflow);
    // each column is the whole board's column cut to its first task, field for field
    expect(first.body.columns).toEqual(
      Object.fromEntries(Object.entries(whole.body.columns as Record<string, unknown[]>).map(([c, tasks]) => [c, tasks.slice(0, 1)])),
    );
    expect(first.body.columns.ready.map((t: { id: string }) => t.id)).toEqual([readyCritical]);
    expect(first.body.counts).toEqual({ backlog: 2, ready: 3, in_progress: 0, blocked: 0, review: 0, completed: 2 });
    // readyCritical is in the answer; the others are not (the archived and deleted ones would not be on the board at all)
    expect(first.body.dependency_statuses).toEqual({ [done[1]!]: 'completed', [readyLow]: 'ready' });

    const enough = await app.call('GET', `/api/views/board?project_id=${project}&limit_per_column=500`);
    expect(enough.body.columns).toEqual(whole.body.columns);
    expect(enough.body.dependency_statuses).toEqual({});
    expect(enough.body.counts).toEqual({ backlog: 2, ready: 3, in_progress: 0, blocked: 0, review: 0, completed: 2 });
    const withStuck = await app.call('GET', `/api/views/board?project_id=${project}&limit_per_column=2&include=stuck`);
    expect(Object.keys(withStuck.body)).toEqual(['project', 'workflow', 'columns', 'stuck', 'counts', 'dependency_statuses']);
    const empty = (await app.call('POST', '/api/projects', { body: { name: 'Empty first screenful' } })).body.id as string;
    const none = await app.call('GET', `/api/views/board?project_id=${empty}&limit_per_column=3`);
    expect(none.body.counts).toEqual({ backlog: 0, ready: 0, in_progress: 0, blocked: 0, review: 0, completed: 0 });
    expect(none.body.columns).toEqual({ backlog: [], ready: [], in_progress: [], blocked: [], review: [], completed: [] });
  });

  it('board refuses a limit_per_column that is not a whole number from 1 to 500 with 400 naming it; an unknown project is 404 all the same', async () => {
    for (const value of ['0', '501', '-1', '1.5', 'abc', '', '1e2']) {
      const res = await app.call('GET', `/api/views/board?project_id=${otherProject}&limit_per_column=${encodeURIComponent(value)}`);
      expect(res.status, value).toBe(400);
      expect(JSON.stringify(res.body), value).toContain('limit_per_column');
    }
    expect((await app.call('GET', `/api/views/board?project_id=${UNKNOWN}&limit_per_column=5`)).status).toBe(404);
    expect((await app.call('GET', `/api/views/board?limit_per_column=5`)).status).toBe(200);
  });

  it('timeline: dated tasks within the range, subtasks nested, dependencies with their dates', async () => {
    const project = (await app.call('POST', '/api/projects', { body: { name: 'Timeline' } })).body.id;
    const mk = async (fields: Record<string, unknown>) =>
      (await app.call('POST', '/api/tasks', { body: { project_id: project, title: 't', ...fields } })).body;
    const dep = await mk({ title: 'dep', start_date: '2027-01-01', due_date: '2027-01-05' });
    const parent = await mk({ title: 'parent', start_date: '2027-02-01', due_date: '2027-02-20', dependency_ids: [dep.id] });
    const child = await mk({ title: 'child', due_date: '2027-02-10', parent_task_id: parent.id });
    const second = await mk({ title: 'second child', due_date: '2027-02-12', parent_task_id: parent.id });
    const first = await mk({ title: 'first child', start_date: '2027-02-02', parent_task_id: parent.id });
    await mk({ title: 'undated' });
    const late = await mk({ title: 'late', start_date: '2027-06-01' });
    const all = await app.call('GET', `/api/views/timeline?project_id=${project}`);
    expect(all.status).toBe(200);
    expect(all.body.range).toEqual({ start: '2027-01-01T00:00:00.000Z', end: '2027-06-01T00:00:00.000Z' });
    expect(all.body.tasks.map((e: any) => e.task.id)).toEqual([dep.id, parent.id, late.id]);
    const p = all.body.tasks[1];
    // every dated subtask under its parent, in timeline order
    expect(p.subtasks.map((e: any) => e.task.id)).toEqual([first.id, child.id, second.id]);
    expect(p.dependencies).toEqual([
      { id: dep.id, title: 'dep', start_date: '2027-01-01T00:00:00.000Z', due_date: '2027-01-05T00:00:00.000Z' },
    ]);
    expect(all.body.tasks[0]).not.toHaveProperty('subtasks');
    const feb = await app.call('GET', `/api/views/timeline?project_id=${project}&start=2027-02-05&end=2027-03-01`);
    expect(feb.body.range).toEqual({ start: '2027-02-05T00:00:00.000Z', end: '2027-03-01T00:00:00.000Z' });
    expect(feb.body.tasks.map((e: any) => e.task.id)).toEqual([parent.id]);
    expect((await app.call('GET', `/api/views/timeline?project_id=${project}&start=2027-03-01&end=2027-02-01`)).status).toBe(400);
    expect((await app.call('GET', `/api/views/timeline?start=soon`)).status).toBe(400);
  });

  it('agent queue: tasks the agent owns that are ready or in progress, in progress first, paginated', async () => {
    const ready = await task({ owner: 'queue-agent', status: 'ready', priority: 'high' });
    const working = await task({ owner: 'queue-agent', status: 'in_progress', priority: 'low' });
    const ready2 = await task({ owner: 'queue-agent', status: 'ready', priority: 'low' });
    await task({ owner: 'queue-agent', status: 'backlog' });
    await task({ owner: 'someone-else', status: 'ready' });
    const gone = await task({ owner: 'queue-agent', status: 'ready' });
    await app.call('DELETE', `/api/tasks/${gone.id}`);
    const first = await app.call('GET', '/api/views/agent?agent=queue-agent&limit=2');
    expect(first.status).toBe(200);
    expect(first.body.agent).toBe('queue-agent');
    expect(first.body.tasks.map((t: { id: string }) => t.id)).toEqual([working.id, ready.id]);
    expect(first.body.pagination).toEqual({ page: 1, limit: 2, total: 3, pages: 2 });
    const second = await app.call('GET', '/api/views/agent?agent=queue-agent&limit=2&page=2');
    expect(second.body.tasks.map((t: { id: string }) => t.id)).toEqual([ready2.id]);
    const defaults = await app.call('GET', '/api/views/agent?agent=queue-agent');
    expect(defaults.body.pagination).toMatchObject({ page: 1, limit: 50 });
    for (const bad of ['', '?agent=', '?agent=a&page=0', '?agent=a&limit=0', '?agent=a&limit=201', '?agent=a&page=x']) {
      const res = await app.call('GET', `/api/views/agent${bad}`);
      expect(res.status, bad).toBe(400);
    }
  });
});
