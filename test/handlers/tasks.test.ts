import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { movableClock, recordingRuntime } from '../support/fakes';
import { useTestApp } from '../support/use-app';

const app = useTestApp();
let projectId: string;
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  projectId = (await app.call('POST', '/api/projects', { body: { name: 'Tasks home' } })).body.id;
});

async function newTask(fields: Record<string, unknown> = {}) {
  const res = await app.call('POST', '/api/tasks', { body: { project_id: projectId, title: 'a task', ...fields } });
  expect(res.status).toBe(201);
  return res.body as Record<string, any>;
}

async function auditOf(taskId: string) {
  const { rows } = await app.db.query<{
    action: string;
    actor: string;
    entity_type: string;
    project_id: string;
    old_value: any;
    new_value: any;
  }>('SELECT action, actor, entity_type, project_id, old_value, new_value FROM audit_log WHERE task_id = $1 ORDER BY id', [taskId]);
  return rows;
}

describe('task create', () => {
  it('creates a task with defaults, 201, an audit row, a state snapshot and a task:changed event', async () => {
    const task = await newTask({ title: 'Write the brief', labels: ['docs'], due_date: '2026-12-01' });
    expect(task).toMatchObject({
      project_id: projectId,
      title: 'Write the brief',
      description: '',
      status: 'backlog',
      priority: 'medium',
      owner: null,
      labels: ['docs'],
      dependency_ids: [],
      retry_count: 0,
      deleted_at: null,
      archived_at: null,
      completed_at: null,
      due_date: '2026-12-01T00:00:00.000Z',
    });
    expect(task.status_updated_at).toBe(task.created_at);
    const audit = await auditOf(task.id);
    expect(audit).toEqual([
      expect.objectContaining({
        action: 'created',
        actor: 'dashboard-operator',
        entity_type: 'task',
        project_id: projectId,
        old_value: null,
      }),
    ]);
    const snaps = await app.db.query(`SELECT reason FROM entity_snapshots WHERE entity_type = 'task' AND entity_id = $1`, [task.id]);
    expect(snaps.rows).toEqual([{ reason: 'created' }]);
    const events = await app.db.query(`SELECT name, channel, payload FROM event_outbox WHERE payload->>'taskId' = $1`, [task.id]);
    expect(events.rows).toEqual([{ name: 'task:changed', channel: 'events', payload: { action: 'created', taskId: task.id } }]);
  });

  it('sets completed_at when a task is created completed', async () => {
    const task = await newTask({ status: 'completed' });
    expect(task.completed_at).toBe(task.created_at);
  });

  it('refuses a create without project_id or title, with unknown fields, bad values or unknown references, naming them', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ title: 'x' }, /project_id/],
      [{ project_id: projectId }, /title/],
      [{ project_id: projectId, title: '  ' }, /title/],
      [{ project_id: projectId, title: 'x', colour: 'red' }, /colour/],
      [{ project_id: projectId, title: 'x', status: 'done' }, /status/],
      [{ project_id: projectId, title: 'x', priority: 'urgent' }, /priority/],
      [{ project_id: projectId, title: 'x', due_date: 'tomorrow' }, /due_date/],
      [{ project_id: projectId, title: 'x', estimated_effort: -1 }, /estimated_effort/],
      [{ project_id: 'nope', title: 'x' }, /project_id/],
      [{ project_id: UNKNOWN, title: 'x' }, /project_id: no such project/],
      [{ project_id: projectId, title: 'x', dependency_ids: [UNKNOWN] }, /dependency_ids: no such task/],
      [{ project_id: projectId, title: 'x', parent_task_id: UNKNOWN }, /parent_task_id: no such task/],
      [[], /task/],
    ];
    for (const [body, message] of cases) {
      const res = await app.call('POST', '/api/tasks', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toMatch(message);
    }
    expect((await app.call('POST', '/api/tasks')).status).toBe(400);
  });
});

describe('legacy markdown tasks', () => {
  it('reads an empty file before the first write, then writes and reads back the markdown under DATA_DIR', async () => {
    const empty = await app.call('GET', '/api/tasks');
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ content: '', path: expect.stringContaining(app.dataDir), format: 'markdown' });
    const written = await app.call('POST', '/api/tasks', { body: { content: '# Tasks\n- [ ] ship it\n' } });
    expect(written.status).toBe(200);
    expect(written.body).toEqual({ success: true, path: empty.body.path });
    const read = await app.call('GET', '/api/tasks');
    expect(read.body.content).toBe('# Tasks\n- [ ] ship it\n');
    const audit = await app.db.query(`SELECT action, new_value FROM audit_log WHERE entity_type = 'legacy_tasks_file'`);
    expect(audit.rows).toEqual([{ action: 'updated', new_value: { characters: 22 } }]);
  });

  it('refuses a legacy write whose content is not a string, and leaves the file as it was', async () => {
    await app.call('POST', '/api/tasks', { body: { content: 'kept' } });
    const res = await app.call('POST', '/api/tasks', { body: { content: 42 } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/content/);
    expect((await app.call('GET', '/api/tasks')).body.content).toBe('kept');
  });
});

describe('task reads', () => {
  it('lists tasks oldest first without deleted ones, filtered by project and updated_since', async () => {
    const other = (await app.call('POST', '/api/projects', { body: { name: 'Other' } })).body.id;
    const a = await newTask({ project_id: other, title: 'kept' });
    const b = await newTask({ project_id: other, title: 'deleted' });
    await app.call('DELETE', `/api/tasks/${b.id}`);
    const list = await app.call('GET', `/api/tasks/all?project_id=${other}`);
    expect(list.status).toBe(200);
    expect(list.body.map((t: { id: string }) => t.id)).toEqual([a.id]);
    const all = await app.call('GET', '/api/tasks/all');
    expect(all.body.some((t: { id: string }) => t.id === b.id)).toBe(false);
    const created = all.body.map((t: { created_at: string }) => t.created_at);
    expect([...created].sort()).toEqual(created);
    const future = await app.call('GET', `/api/tasks/all?updated_since=${encodeURIComponent('2999-01-01T00:00:00Z')}`);
    expect(future.body).toEqual([]);
  });

  it('returns only tasks updated at or after updated_since', async () => {
    const clock = movableClock('2030-01-01T00:00:00.000Z');
    const previous = app.ctx.deps.clock;
    app.ctx.deps.clock = clock;
    try {
      const early = await newTask({ title: 'early' });
      clock.advance(60_000);
      const late = await newTask({ title: 'late' });
      clock.advance(60_000);
      await app.call('PATCH', `/api/tasks/${early.id}`, { body: { description: 'touched' } });
      const since = await app.call('GET', `/api/tasks/all?updated_since=${encodeURIComponent(late.updated_at)}`);
      expect(since.body.map((t: { id: string }) => t.id).sort()).toEqual([early.id, late.id].sort());
      const after = await app.call('GET', `/api/tasks/all?updated_since=2030-01-01T00:01:30Z`);
      expect(after.body.map((t: { id: string }) => t.id)).toEqual([early.id]);
    } finally {
      app.ctx.deps.clock = previous;
    }
  });

  it('refuses malformed list parameters with 400, and ignores unknown ones, naming them', async () => {
    expect((await app.call('GET', '/api/tasks/all?updated_since=yesterday')).status).toBe(400);
    expect((await app.call('GET', '/api/tasks/all?project_id=x')).status).toBe(400);
    const unknown = await app.call('GET', '/api/tasks/all?status=ready');
    expect(unknown.status).toBe(200);
    expect(unknown.headers['x-ignored-params']).toBe('status');
  });

  it('gets one task with its dependencies, subtasks and a history pointer; 404 unknown, 400 malformed', async () => {
    const dep = await newTask({ title: 'dependency' });
    const parent = await newTask({ title: 'parent', dependency_ids: [dep.id] });
    const child = await newTask({ title: 'child', parent_task_id: parent.id });
    const got = await app.call('GET', `/api/tasks/${parent.id}`);
    expect(got.status).toBe(200);
    expect(got.body.dependencies).toEqual([{ id: dep.id, title: 'dependency', status: 'backlog' }]);
    expect(got.body.subtasks).toEqual([{ id: child.id, title: 'child', status: 'backlog' }]);
    expect(got.body.history).toEqual({ url: `/api/tasks/${parent.id}/history`, entries: 1 });
    expect((await app.call('GET', `/api/tasks/${UNKNOWN}`)).status).toBe(404);
    expect((await app.call('GET', '/api/tasks/not-a-uuid')).status).toBe(400);
  });

  it('serves the list and a single task from the fallback copy while the database is away', async () => {
    const saved = app.ctx.deps.storage;
    const row = {
      id: '11111111-1111-4111-8111-111111111111',
      project_id: projectId,
      title: 'cached',
      status: 'ready',
      dependency_ids: [],
      updated_at: '2026-01-01T00:00:00.000Z',
      deleted_at: null,
    };
    const gone = { ...row, id: '22222222-2222-4222-8222-222222222222', deleted_at: '2026-01-02T00:00:00.000Z' };
    app.ctx.deps.storage = {
      mode: 'fallback',
      fallback: { savedAt: null, projects: [], tasks: [row, gone] },
      label: 'fallback file',
      reason: 'test',
    };
    try {
      const list = await app.call('GET', '/api/tasks/all');
      expect(list.status).toBe(200);
      expect(list.body.map((t: { id: string }) => t.id)).toEqual([row.id]);
      expect((await app.call('GET', `/api/tasks/all?updated_since=2026-06-01`)).body).toEqual([]);
      const one = await app.call('GET', `/api/tasks/${row.id}`);
      expect(one.body).toMatchObject({ title: 'cached', dependencies: [], subtasks: [], history: { entries: null } });
      const write = await app.call('POST', '/api/tasks', { body: { project_id: projectId, title: 'x' } });
      expect(write.status).toBe(503);
    } finally {
      app.ctx.deps.storage = saved;
    }
  });
});

describe('task updates and moves', () => {
  it('patches fields and audits before and after; a status change is status_changed with status_updated_at', async () => {
    const clock = movableClock('2031-05-01T10:00:00.000Z');
    const previous = app.ctx.deps.clock;
    app.ctx.deps.clock = clock;
    try {
      const task = await newTask();
      clock.advance(1000);
      const patched = await app.call('PATCH', `/api/tasks/${task.id}`, {
        body: { title: 'renamed', owner: 'agent-7', metadata: { k: 1 } },
      });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({
        title: 'renamed',
        owner: 'agent-7',
        metadata: { k: 1 },
        status_updated_at: task.status_updated_at,
      });
      clock.advance(1000);
      const done = await app.call('PATCH', `/api/tasks/${task.id}`, { body: { status: 'completed' } });
      expect(done.body).toMatchObject({
        status: 'completed',
        status_updated_at: '2031-05-01T10:00:02.000Z',
        completed_at: '2031-05-01T10:00:02.000Z',
      });
      const audit = await auditOf(task.id);
      expect(audit.map((a) => a.action)).toEqual(['created', 'updated', 'status_changed']);
      expect(audit[1]).toMatchObject({ old_value: { title: 'a task' }, new_value: { title: 'renamed' } });
    } finally {
      app.ctx.deps.clock = previous;
    }
  });

  it('refuses empty patches, unknown fields and bad values with 400 naming them, and changes nothing', async () => {
    const task = await newTask();
    const cases: Array<[unknown, RegExp]> = [
      [{}, /at least one field/],
      [{ colour: 'red' }, /colour/],
      [{ id: UNKNOWN }, /id/],
      [{ status: 'finished' }, /status/],
      [{ priority: 3 }, /priority/],
      [{ labels: 'x' }, /labels/],
      [{ due_date: '2026-13-45' }, /due_date/],
      [{ project_id: UNKNOWN }, /project_id/],
    ];
    for (const [body, message] of cases) {
      const res = await app.call('PATCH', `/api/tasks/${task.id}`, { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toMatch(message);
    }
    expect(await auditOf(task.id)).toHaveLength(1);
    expect((await app.call('PATCH', `/api/tasks/${UNKNOWN}`, { body: { title: 'x' } })).status).toBe(404);
  });

  it('moves to any database-backed status and refuses others; completion sets completed_at, leaving it clears it', async () => {
    const task = await newTask();
    const drafting = await app.call('POST', `/api/tasks/${task.id}/move`, { body: { status: 'drafting' } });
    expect(drafting.status).toBe(200);
    expect(drafting.body.status).toBe('drafting');
    const done = await app.call('POST', `/api/tasks/${task.id}/move`, { body: { status: 'completed' } });
    expect(done.body.completed_at).not.toBeNull();
    const reopened = await app.call('POST', `/api/tasks/${task.id}/move`, { body: { status: 'review' } });
    expect(reopened.body.completed_at).toBeNull();
    const bad = await app.call('POST', `/api/tasks/${task.id}/move`, { body: { status: 'done' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/status/);
    expect((await app.call('POST', `/api/tasks/${task.id}/move`, {})).status).toBe(400);
    expect((await app.call('POST', `/api/tasks/${UNKNOWN}/move`, { body: { status: 'ready' } })).status).toBe(404);
    expect((await auditOf(task.id)).map((a) => a.action)).toEqual(['created', 'status_changed', 'status_changed', 'status_changed']);
  });
});

describe('archive, delete, restore and retry', () => {
  it('archives (archived_at set), refuses to archive twice, and restores', async () => {
    const task = await newTask();
    const archived = await app.call('POST', `/api/tasks/${task.id}/archive`);
    expect(archived.status).toBe(200);
    expect(archived.body.archived_at).not.toBeNull();
    expect((await app.call('POST', `/api/tasks/${task.id}/archive`)).status).toBe(409);
    const restored = await app.call('POST', `/api/tasks/${task.id}/restore`);
    expect(restored.body).toMatchObject({ archived_at: null, deleted_at: null });
    expect((await app.call('POST', `/api/tasks/${task.id}/restore`)).status).toBe(409);
  });

  it('soft-deletes (deleted_at set, archived_at cleared); a deleted task cannot be archived, moved or patched until restored', async () => {
    const task = await newTask();
    await app.call('POST', `/api/tasks/${task.id}/archive`);
    const deleted = await app.call('DELETE', `/api/tasks/${task.id}`);
    expect(deleted.body).toEqual({ deleted: true, id: task.id });
    const row = (await app.db.query('SELECT deleted_at, archived_at FROM tasks WHERE id = $1', [task.id])).rows[0];
    expect(row).toMatchObject({ deleted_at: expect.any(Date), archived_at: null });
    const archive = await app.call('POST', `/api/tasks/${task.id}/archive`);
    expect(archive.status).toBe(409);
    expect(archive.body.error).toMatch(/deleted/);
    expect((await app.call('POST', `/api/tasks/${task.id}/move`, { body: { status: 'ready' } })).status).toBe(409);
    expect((await app.call('PATCH', `/api/tasks/${task.id}`, { body: { title: 'x' } })).status).toBe(409);
    expect((await app.call('DELETE', `/api/tasks/${task.id}`)).status).toBe(404);
    const restored = await app.call('POST', `/api/tasks/${task.id}/restore`);
    expect(restored.body).toMatchObject({ deleted_at: null, archived_at: null });
    expect((await auditOf(task.id)).map((a) => a.action)).toEqual(['created', 'archived', 'deleted', 'restored']);
    expect((await app.call('DELETE', `/api/tasks/${UNKNOWN}`)).status).toBe(404);
  });

  it('retries: back to ready, retry_count incremented, lock cleared; 404 unknown', async () => {
    const task = await newTask({ status: 'failed' });
    await app.db.query(`UPDATE tasks SET locked_at = now(), locked_by = 'agent-x' WHERE id = $1`, [task.id]);
    const res = await app.call('POST', `/api/tasks/${task.id}/retry`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      retried: true,
      retry_count: 1,
      task: { status: 'ready', locked_at: null, locked_by: null, retry_count: 1 },
    });
    expect((await app.call('POST', `/api/tasks/${task.id}/retry`)).body.retry_count).toBe(2);
    expect((await app.call('POST', `/api/tasks/${UNKNOWN}/retry`)).status).toBe(404);
    expect((await auditOf(task.id)).map((a) => a.action)).toEqual(['created', 'retried', 'retried']);
  });
});

describe('dependencies and subtasks', () => {
  it('adds and removes dependencies; ids must exist', async () => {
    const [a, b, c] = [await newTask(), await newTask(), await newTask()];
    const added = await app.call('POST', `/api/tasks/${a.id}/dependencies`, { body: { add: [b.id, c.id] } });
    expect(added.status).toBe(200);
    expect(added.body).toEqual({ dependencies: [b.id, c.id] });
    const removed = await app.call('POST', `/api/tasks/${a.id}/dependencies`, { body: { remove: [b.id] } });
    expect(removed.body).toEqual({ dependencies: [c.id] });
    const missing = await app.call('POST', `/api/tasks/${a.id}/dependencies`, { body: { add: [UNKNOWN] } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toContain(UNKNOWN);
    expect((await app.call('POST', `/api/tasks/${a.id}/dependencies`, { body: {} })).status).toBe(400);
    expect((await app.call('POST', `/api/tasks/${a.id}/dependencies`, { body: { add: [b.id], remove: [b.id] } })).status).toBe(400);
    expect((await app.call('POST', `/api/tasks/${UNKNOWN}/dependencies`, { body: { add: [b.id] } })).status).toBe(404);
  });

  it('never lets a task depend on itself or close a dependency cycle, and names the cycle', async () => {
    const [a, b, c] = [await newTask(), await newTask(), await newTask()];
    const self = await app.call('POST', `/api/tasks/${a.id}/dependencies`, { body: { add: [a.id] } });
    expect(self.status).toBe(400);
    expect(self.body.error).toMatch(/itself/);
    await app.call('POST', `/api/tasks/${a.id}/dependencies`, { body: { add: [b.id] } });
    await app.call('POST', `/api/tasks/${b.id}/dependencies`, { body: { add: [c.id] } });
    const cycle = await app.call('POST', `/api/tasks/${c.id}/dependencies`, { body: { add: [a.id] } });
    expect(cycle.status).toBe(400);
    expect(cycle.body.error).toContain(`${c.id} -> ${a.id} -> ${b.id} -> ${c.id}`);
    const viaPatch = await app.call('PATCH', `/api/tasks/${c.id}`, { body: { dependency_ids: [a.id] } });
    expect(viaPatch.status).toBe(400);
    expect(viaPatch.body.error).toMatch(/cycle/);
    expect((await app.call('GET', `/api/tasks/${c.id}`)).body.dependency_ids).toEqual([]);
  });

  it('links an existing task as a subtask and answers the parent with its subtasks; no task contains itself or its ancestor', async () => {
    const [parent, child, grandchild] = [await newTask({ title: 'P' }), await newTask({ title: 'C' }), await newTask({ title: 'G' })];
    const linked = await app.call('POST', `/api/tasks/${parent.id}/subtasks`, { body: { task_id: child.id } });
    expect(linked.status).toBe(200);
    expect(linked.body).toMatchObject({ id: parent.id, subtasks: [{ id: child.id, title: 'C', status: 'backlog' }] });
    await app.call('POST', `/api/tasks/${child.id}/subtasks`, { body: { task_id: grandchild.id } });
    const self = await app.call('POST', `/api/tasks/${parent.id}/subtasks`, { body: { task_id: parent.id } });
    expect(self.status).toBe(400);
    expect(self.body.error).toMatch(/itself/);
    const cycle = await app.call('POST', `/api/tasks/${grandchild.id}/subtasks`, { body: { task_id: parent.id } });
    expect(cycle.status).toBe(400);
    expect(cycle.body.error).toContain(`${parent.id} -> ${grandchild.id} -> ${child.id} -> ${parent.id}`);
    const viaPatch = await app.call('PATCH', `/api/tasks/${parent.id}`, { body: { parent_task_id: grandchild.id } });
    expect(viaPatch.status).toBe(400);
    expect((await app.call('POST', `/api/tasks/${parent.id}/subtasks`, { body: { task_id: UNKNOWN } })).status).toBe(400);
    expect((await app.call('POST', `/api/tasks/${UNKNOWN}/subtasks`, { body: { task_id: child.id } })).status).toBe(404);
  });
});

describe('task history and options', () => {
  it('lists the audit history of a task newest first; 404 for an unknown task', async () => {
    const task = await newTask();
    await app.call('POST', `/api/tasks/${task.id}/move`, { body: { status: 'ready' } });
    const res = await app.call('GET', `/api/tasks/${task.id}/history`);
    expect(res.status).toBe(200);
    expect(res.body.task_id).toBe(task.id);
    expect(res.body.history.map((h: { action: string }) => h.action)).toEqual(['status_changed', 'created']);
    expect(res.body.history[0]).toMatchObject({
      actor: 'dashboard-operator',
      entity_type: 'task',
      task_id: task.id,
      project_id: projectId,
    });
    expect((await app.call('GET', `/api/tasks/${UNKNOWN}/history`)).status).toBe(404);
  });

  it('offers agents and models from agent profiles merged with the runtime agent list', async () => {
    await app.db.query(
      `INSERT INTO agent_profiles (agent_id, display_name, model) VALUES ('writer', 'Writer', 'model-a'), ('main', 'Main', NULL)`,
    );
    const previous = app.ctx.deps.runtime;
    const runtime = recordingRuntime(() => ({ agents: [{ id: 'main', model: 'model-b' }, { id: 'scout' }] }));
    app.ctx.deps.runtime = runtime;
    try {
      const res = await app.call('GET', '/api/task-options');
      expect(res.status).toBe(200);
      expect(runtime.calls).toEqual([['agents', 'list', '--json']]);
      expect(res.body).toEqual({
        defaults: { agent: 'main', model: 'model-b' },
        agents: [
          { id: 'main', name: 'Main', model: 'model-b', sources: ['profile', 'runtime'] },
          { id: 'scout', name: 'scout', model: null, sources: ['runtime'] },
          { id: 'writer', name: 'Writer', model: 'model-a', sources: ['profile'] },
        ],
        models: ['model-a', 'model-b'],
      });
      app.ctx.deps.runtime = recordingRuntime(() => 'unavailable');
      const without = await app.call('GET', '/api/task-options');
      expect(without.status).toBe(200);
      expect(without.body.agents.map((a: { id: string }) => a.id)).toEqual(['main', 'writer']);
      expect(without.body.defaults).toEqual({ agent: 'main', model: 'model-a' });
    } finally {
      app.ctx.deps.runtime = previous;
    }
  });
});

describe('random bodies at the mutating task endpoints', () => {
  it('never answer 5xx, and every 4xx carries {error}', async () => {
    const task = await newTask();
    const value = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.constant(projectId),
      fc.constant(task.id),
      fc.array(fc.string()),
    );
    const body = fc.oneof(
      fc.dictionary(
        fc.constantFrom(
          'project_id',
          'title',
          'status',
          'priority',
          'due_date',
          'dependency_ids',
          'labels',
          'owner',
          'content',
          'metadata',
          'x',
          'add',
          'remove',
          'task_id',
          'parent_task_id',
        ),
        value,
      ),
      fc.anything(),
    );
    const targets = [
      ['POST', '/api/tasks'],
      ['PATCH', `/api/tasks/${task.id}`],
      ['POST', `/api/tasks/${task.id}/move`],
      ['POST', `/api/tasks/${task.id}/dependencies`],
      ['POST', `/api/tasks/${task.id}/subtasks`],
    ] as const;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...targets), body, async ([method, path], b) => {
        const res = await app.call(method, path, { body: b });
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) expect(typeof res.body.error).toBe('string');
      }),
      { numRuns: 120 },
    );
  });
});
