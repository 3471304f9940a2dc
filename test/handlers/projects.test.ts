import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app';
import { useTestApp } from '../support/use-app';

const app = useTestApp();

async function auditRows(entityId: string) {
  const { rows } = await app.db.query<{ action: string; actor: string; old_value: unknown; new_value: unknown; project_id: string }>(
    'SELECT action, actor, old_value, new_value, project_id FROM audit_log WHERE entity_id = $1 ORDER BY id',
    [entityId],
  );
  return rows;
}

describe('projects', () => {
  it('creates a project with defaults and returns 201 with the full record', async () => {
    const res = await app.call('POST', '/api/projects', { body: { name: 'Launch', tags: ['q3'] } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Launch',
      description: '',
      status: 'active',
      tags: ['q3'],
      metadata: {},
      default_workflow_id: null,
    });
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Date(res.body.created_at).toISOString()).toBe(res.body.created_at);
    const audit = await auditRows(res.body.id);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ action: 'created', actor: 'dashboard-operator', project_id: res.body.id, old_value: null });
  });

  it('refuses a create without a name, with an unknown field or a bad status, naming the field', async () => {
    const missing = await app.call('POST', '/api/projects', { body: { description: 'x' } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/name/);
    const unknown = await app.call('POST', '/api/projects', { body: { name: 'a', colour: 'red' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatch(/colour/);
    const status = await app.call('POST', '/api/projects', { body: { name: 'a', status: 'done' } });
    expect(status.status).toBe(400);
    expect(status.body.error).toMatch(/status/);
    const none = await app.call('POST', '/api/projects');
    expect(none.status).toBe(400);
  });

  it('answers a malformed JSON body with 400, not 415 or 500', async () => {
    const res = await app.call('POST', '/api/projects', { raw: '{"name":' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/JSON/);
  });

  it('gets a project by id, 404 for an unknown id and 400 for a malformed one', async () => {
    const created = await app.call('POST', '/api/projects', { body: { name: 'Lookup' } });
    const got = await app.call('GET', `/api/projects/${created.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body.name).toBe('Lookup');
    expect(got.body).not.toHaveProperty('default_workflow');
    const unknown = await app.call('GET', '/api/projects/00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatch(/not found/);
    const malformed = await app.call('GET', '/api/projects/nope');
    expect(malformed.status).toBe(400);
  });

  it('includes default_workflow on single reads when default_workflow_id is set, never on the list', async () => {
    const workflowId = '11111111-1111-4111-8111-111111111111';
    await app.db.query(`INSERT INTO workflows (id, name, states) VALUES ($1, 'Editorial', '["draft","done"]')`, [workflowId]);
    const created = await app.call('POST', '/api/projects', { body: { name: 'With flow', default_workflow_id: workflowId } });
    expect(created.status).toBe(201);
    expect(created.body.default_workflow).toMatchObject({ id: workflowId, name: 'Editorial', states: ['draft', 'done'] });
    const list = await app.call('GET', '/api/projects');
    const listed = list.body.find((p: { id: string }) => p.id === created.body.id);
    expect(listed.default_workflow_id).toBe(workflowId);
    expect(listed).not.toHaveProperty('default_workflow');
    const badRef = await app.call('POST', '/api/projects', {
      body: { name: 'x', default_workflow_id: '22222222-2222-4222-8222-222222222222' },
    });
    expect(badRef.status).toBe(400);
    expect(badRef.body.error).toMatch(/default_workflow_id/);
  });

  it('lists projects oldest first and filters by status', async () => {
    const paused = await app.call('POST', '/api/projects', { body: { name: 'Paused one', status: 'paused' } });
    const all = await app.call('GET', '/api/projects');
    expect(all.status).toBe(200);
    const times = all.body.map((p: { created_at: string }) => p.created_at);
    expect([...times].sort()).toEqual(times);
    const onlyPaused = await app.call('GET', '/api/projects?status=paused');
    expect(onlyPaused.body.map((p: { id: string }) => p.id)).toEqual([paused.body.id]);
    const bad = await app.call('GET', '/api/projects?status=sleeping');
    expect(bad.status).toBe(400);
    const unknownParam = await app.call('GET', '/api/projects?colour=red&status=paused');
    expect(unknownParam.status).toBe(200);
    expect(unknownParam.headers['x-ignored-params']).toBe('colour');
    expect(unknownParam.body).toEqual(onlyPaused.body);
  });

  it('patches fields, audits before and after, and records status changes as status_changed', async () => {
    const created = await app.call('POST', '/api/projects', { body: { name: 'Patch me' } });
    const renamed = await app.call('PATCH', `/api/projects/${created.body.id}`, { body: { name: 'Patched', metadata: { a: 1 } } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Patched', metadata: { a: 1 } });
    expect(new Date(renamed.body.updated_at).getTime()).toBeGreaterThanOrEqual(new Date(created.body.updated_at).getTime());
    const archived = await app.call('PATCH', `/api/projects/${created.body.id}`, { body: { status: 'archived' } });
    expect(archived.body.status).toBe('archived');
    const audit = await auditRows(created.body.id);
    expect(audit.map((a) => a.action)).toEqual(['created', 'updated', 'status_changed']);
    expect(audit[1]).toMatchObject({ old_value: { name: 'Patch me' }, new_value: { name: 'Patched' } });
  });

  it('refuses empty, unknown-field and invalid patches, and 404s an unknown project', async () => {
    const created = await app.call('POST', '/api/projects', { body: { name: 'Strict' } });
    expect((await app.call('PATCH', `/api/projects/${created.body.id}`, { body: {} })).status).toBe(400);
    expect((await app.call('PATCH', `/api/projects/${created.body.id}`, { body: { id: created.body.id } })).status).toBe(400);
    expect((await app.call('PATCH', `/api/projects/${created.body.id}`, { body: { tags: 'x' } })).status).toBe(400);
    expect((await app.call('PATCH', `/api/projects/${created.body.id}`, { body: { name: '   ' } })).status).toBe(400);
    const unknown = await app.call('PATCH', '/api/projects/00000000-0000-4000-8000-000000000000', { body: { name: 'x' } });
    expect(unknown.status).toBe(404);
    const audit = await auditRows(created.body.id);
    expect(audit).toHaveLength(1);
  });

  it('deletes a project with no live tasks, and refuses with 409 while tasks remain', async () => {
    const created = await app.call('POST', '/api/projects', { body: { name: 'Doomed' } });
    const id = created.body.id;
    await app.db.query(`INSERT INTO tasks (id, project_id, title) VALUES (gen_random_uuid(), $1, 'still here')`, [id]);
    const refused = await app.call('DELETE', `/api/projects/${id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatch(/1 task/);
    expect((await app.call('GET', `/api/projects/${id}`)).status).toBe(200);
    await app.db.query(`UPDATE tasks SET deleted_at = now() WHERE project_id = $1`, [id]);
    const deleted = await app.call('DELETE', `/api/projects/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ deleted: true, id });
    expect((await app.call('GET', `/api/projects/${id}`)).status).toBe(404);
    expect((await app.call('DELETE', `/api/projects/${id}`)).status).toBe(404);
    const audit = await auditRows(id);
    expect(audit.map((a) => a.action)).toEqual(['created', 'deleted']);
    expect(audit[1]!.old_value).toMatchObject({ name: 'Doomed' });
  });

  it('records each project mutation as a per-entity state snapshot and an outbox event', async () => {
    const created = await app.call('POST', '/api/projects', { body: { name: 'Traced' } });
    await app.call('PATCH', `/api/projects/${created.body.id}`, { body: { description: 'more' } });
    const snaps = await app.db.query<{ reason: string; state: { description: string } }>(
      `SELECT reason, state FROM entity_snapshots WHERE entity_type = 'project' AND entity_id = $1 ORDER BY created_at`,
      [created.body.id],
    );
    expect(snaps.rows.map((r) => r.reason)).toEqual(['created', 'updated']);
    expect(snaps.rows[1]!.state.description).toBe('more');
    const events = await app.db.query<{ name: string; payload: unknown }>(
      `SELECT name, payload FROM event_outbox WHERE payload->>'projectId' = $1 ORDER BY id`,
      [created.body.id],
    );
    expect(events.rows).toEqual([
      { name: 'project:changed', payload: { action: 'created', projectId: created.body.id } },
      { name: 'project:changed', payload: { action: 'updated', projectId: created.body.id } },
    ]);
  });

  it('never answers random create and patch bodies with a 5xx, and always with a JSON error on 4xx', async () => {
    const target = await app.call('POST', '/api/projects', { body: { name: 'Fuzz target' } });
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.jsonValue(), fc.object()), fc.boolean(), async (body, patch) => {
        const res = patch
          ? await app.call('PATCH', `/api/projects/${target.body.id}`, { body })
          : await app.call('POST', '/api/projects', { body });
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) expect(typeof res.body.error).toBe('string');
      }),
      { numRuns: 150 },
    );
  });
});

describe('default project', () => {
  it('is the oldest active project, with task counts that leave out soft-deleted tasks', async () => {
    // An empty database of its own: "the oldest active project" must not see the file app's projects.
    const fresh = await startTestApp();
    try {
      expect((await fresh.call('GET', '/api/projects/default')).status).toBe(404);
      const paused = await fresh.call('POST', '/api/projects', { body: { name: 'Old but paused', status: 'paused' } });
      const first = await fresh.call('POST', '/api/projects', { body: { name: 'First active' } });
      await fresh.call('POST', '/api/projects', { body: { name: 'Second active' } });
      await fresh.db.query(
        `INSERT INTO tasks (id, project_id, title, status, deleted_at) VALUES
          (gen_random_uuid(), $1, 'a', 'backlog', NULL), (gen_random_uuid(), $1, 'b', 'completed', NULL),
          (gen_random_uuid(), $1, 'c', 'ready', now())`,
        [first.body.id],
      );
      const res = await fresh.call('GET', '/api/projects/default');
      expect(res.status).toBe(200);
      expect(res.body.id).toBe(first.body.id);
      expect(res.body.task_counts).toEqual({ total: 2, open: 1, completed: 1, by_status: { backlog: 1, completed: 1 } });
      await fresh.call('PATCH', `/api/projects/${first.body.id}`, { body: { status: 'archived' } });
      await fresh.call('PATCH', `/api/projects/${paused.body.id}`, { body: { status: 'active' } });
      expect((await fresh.call('GET', '/api/projects/default')).body.id).toBe(paused.body.id);
    } finally {
      await fresh.close();
    }
  });
});
