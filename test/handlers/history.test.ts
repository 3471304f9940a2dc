import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { movableClock } from '../support/fakes';
import { useTestApp } from '../support/use-app';

const app = useTestApp();
let projectId: string;
let taskId: string;
const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const clock = movableClock('2034-01-01T00:00:00.000Z');

beforeAll(async () => {
  app.ctx.deps.clock = clock;
  projectId = (await app.call('POST', '/api/projects', { body: { name: 'History' } })).body.id;
  clock.set('2034-01-01T01:00:00.000Z');
  taskId = (
    await app.call('POST', '/api/tasks', { body: { project_id: projectId, title: 'v1', metadata: { api_key: 'sk-planted-secret' } } })
  ).body.id;
  clock.set('2034-01-01T02:00:00.000Z');
  await app.call('PATCH', `/api/tasks/${taskId}`, { body: { title: 'v2', owner: 'agent-h' } });
  clock.set('2034-01-01T03:00:00.000Z');
  await app.call('POST', `/api/tasks/${taskId}/move`, { body: { status: 'review' } });
});

describe('history listings', () => {
  it('GET /api/history lists audit entries newest first with the total, filtered by actor, action and entity_type', async () => {
    const all = await app.call('GET', '/api/history');
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(4);
    expect(all.body.entries.map((e: { action: string }) => e.action)).toEqual(['status_changed', 'updated', 'created', 'created']);
    const tasks = await app.call('GET', '/api/history?entity_type=task&action=updated');
    expect(tasks.body).toMatchObject({ total: 1, entries: [{ action: 'updated', task_id: taskId }] });
    const limited = await app.call('GET', '/api/history?limit=1');
    expect(limited.body.entries).toHaveLength(1);
    expect(limited.body.total).toBe(4);
    expect((await app.call('GET', '/api/history?limit=101')).status).toBe(400);
    expect((await app.call('GET', '/api/history?limit=100&actor=nobody')).body).toEqual({ entries: [], total: 0 });
  });

  it('GET /api/history/:taskId lists one task, limit at most 200; 404 unknown, 400 malformed', async () => {
    const res = await app.call('GET', `/api/history/${taskId}?limit=2`);
    expect(res.body.taskId).toBe(taskId);
    expect(res.body.total).toBe(3);
    expect(res.body.entries.map((e: { action: string }) => e.action)).toEqual(['status_changed', 'updated']);
    expect((await app.call('GET', `/api/history/${taskId}?limit=200`)).status).toBe(200);
    expect((await app.call('GET', `/api/history/${taskId}?limit=201`)).status).toBe(400);
    expect((await app.call('GET', `/api/history/${UNKNOWN}`)).status).toBe(404);
    expect((await app.call('GET', '/api/history/abc')).status).toBe(400);
  });
});

describe('time travel', () => {
  it('returns the task as it stood at a timestamp, exact only when a snapshot was taken at that instant', async () => {
    const between = await app.call('GET', `/api/history/${taskId}/snapshot?at=2034-01-01T02:30:00Z`);
    expect(between.status).toBe(200);
    expect(between.body).toMatchObject({
      exact: false,
      snapshot: { title: 'v2', owner: 'agent-h', status: 'backlog' },
      taken_at: '2034-01-01T02:00:00.000Z',
    });
    const exact = await app.call('GET', `/api/history/${taskId}/snapshot?at=2034-01-01T01:00:00.000Z`);
    expect(exact.body).toMatchObject({ exact: true, snapshot: { title: 'v1' } });
    expect(exact.body.snapshot.metadata).toEqual({ api_key: '[REDACTED]' });
    expect(exact.text).not.toContain('sk-planted-secret');
    const before = await app.call('GET', `/api/history/${taskId}/snapshot?at=2033-12-31T00:00:00Z`);
    expect(before.status).toBe(404);
    expect((await app.call('GET', `/api/history/${taskId}/snapshot`)).status).toBe(400);
    expect((await app.call('GET', `/api/history/${taskId}/snapshot?at=noon`)).status).toBe(400);
    expect((await app.call('GET', `/api/history/${UNKNOWN}/snapshot?at=2034-01-01`)).status).toBe(404);
  });

  it('diffs two timestamps field by field', async () => {
    const res = await app.call('GET', `/api/history/${taskId}/diff?from=2034-01-01T01:30:00Z&to=2034-01-01T03:00:00Z`);
    expect(res.status).toBe(200);
    expect(res.body.taskId).toBe(taskId);
    expect(res.body.from).toBe('2034-01-01T01:30:00.000Z');
    const byField = Object.fromEntries(res.body.changes.map((c: { field: string }) => [c.field, c]));
    expect(byField.title).toEqual({ field: 'title', from: 'v1', to: 'v2' });
    expect(byField.owner).toEqual({ field: 'owner', from: null, to: 'agent-h' });
    expect(byField.status).toEqual({ field: 'status', from: 'backlog', to: 'review' });
    expect(byField.description).toBeUndefined();
    const none = await app.call('GET', `/api/history/${taskId}/diff?from=2034-01-01T03:00:00Z&to=2034-01-01T04:00:00Z`);
    expect(none.body.changes).toEqual([]);
    const fromNothing = await app.call('GET', `/api/history/${taskId}/diff?from=2030-01-01&to=2034-01-01T01:00:00Z`);
    expect(fromNothing.body.changes.find((c: { field: string }) => c.field === 'title')).toEqual({ field: 'title', from: null, to: 'v1' });
    expect((await app.call('GET', `/api/history/${taskId}/diff?from=2034-01-02&to=2034-01-01`)).status).toBe(400);
    expect((await app.call('GET', `/api/history/${taskId}/diff?from=2034-01-01`)).status).toBe(400);
  });
});

describe('state snapshots and revert', () => {
  it('lists state snapshots newest first (limit at most 200) and per entity, redacting secret-keyed values', async () => {
    const all = await app.call('GET', '/api/state-snapshots');
    expect(all.status).toBe(200);
    expect(all.body.total).toBeGreaterThanOrEqual(4);
    expect(all.text).not.toContain('sk-planted-secret');
    const times = all.body.snapshots.map((s: { created_at: string }) => s.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    const mine = await app.call('GET', `/api/snapshots/task/${taskId}?limit=2`);
    expect(mine.body.total).toBe(3);
    expect(mine.body.snapshots.map((s: { reason: string }) => s.reason)).toEqual(['status_changed', 'updated']);
    expect(mine.body.snapshots[0]).toMatchObject({
      entity_type: 'task',
      entity_id: taskId,
      actor: 'dashboard-operator',
      state: { status: 'review' },
    });
    expect((await app.call('GET', '/api/state-snapshots?limit=201')).status).toBe(400);
    expect((await app.call('GET', `/api/snapshots/task/${taskId}?limit=0`)).status).toBe(400);
    expect((await app.call('GET', `/api/snapshots/Bad Type/${taskId}`)).status).toBe(400);
    expect((await app.call('GET', `/api/snapshots/task/${UNKNOWN}`)).body).toEqual({ snapshots: [], total: 0 });
  });

  it('previews a revert without side effects', async () => {
    const first = (await app.call('GET', `/api/snapshots/task/${taskId}`)).body.snapshots.at(-1);
    const counts = async () =>
      (await app.db.query(`SELECT (SELECT count(*) FROM audit_log)::int AS a, (SELECT count(*) FROM entity_snapshots)::int AS s`)).rows[0];
    const beforeCounts = await counts();
    const preview = await app.call('POST', `/api/snapshots/${first.id}/preview-revert`);
    expect(preview.status).toBe(200);
    expect(preview.body.snapshot).toMatchObject({ id: first.id, entity_type: 'task', entity_id: taskId, revertable: true });
    expect(preview.body.snapshotState).toMatchObject({ title: 'v1', status: 'backlog' });
    expect(preview.body.currentState).toMatchObject({ title: 'v2', status: 'review' });
    expect(preview.text).not.toContain('sk-planted-secret');
    // the row's derived JSON text (tasks.json_segments) is not part of its state
    expect(Object.keys(preview.body.currentState)).not.toContain('json_segments');
    expect(await counts()).toEqual(beforeCounts);
    expect((await app.call('POST', `/api/snapshots/${UNKNOWN}/preview-revert`)).status).toBe(404);
  });

  it('reverts a task to a snapshot, recording a pre-revert and a revert snapshot and an audit row', async () => {
    clock.set('2034-01-02T00:00:00.000Z');
    const first = (await app.call('GET', `/api/snapshots/task/${taskId}`)).body.snapshots.at(-1);
    const res = await app.call('POST', `/api/snapshots/${first.id}/revert`, { body: { actor: 'ops-lead' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ reverted: true, entityType: 'task', entityId: taskId });
    const task = (await app.call('GET', `/api/tasks/${taskId}`)).body;
    expect(task).toMatchObject({
      title: 'v1',
      status: 'backlog',
      owner: null,
      metadata: { api_key: 'sk-planted-secret' },
      updated_at: '2034-01-02T00:00:00.000Z',
    });
    const snaps = await app.call('GET', `/api/snapshots/task/${taskId}?limit=2`);
    expect(snaps.body.snapshots.map((s: { reason: string; actor: string }) => [s.reason, s.actor])).toEqual([
      ['reverted', 'ops-lead'],
      ['pre-revert', 'ops-lead'],
    ]);
    expect(snaps.body.snapshots[1].state).toMatchObject({ title: 'v2', status: 'review' });
    for (const snap of snaps.body.snapshots) expect(Object.keys(snap.state)).not.toContain('json_segments');
    const audit = await app.db.query(`SELECT action, actor, task_id FROM audit_log WHERE entity_id = $1 ORDER BY id DESC LIMIT 1`, [
      taskId,
    ]);
    expect(audit.rows).toEqual([{ action: 'reverted', actor: 'ops-lead', task_id: taskId }]);
    const event = await app.db.query(`SELECT payload FROM event_outbox WHERE name = 'task:changed' ORDER BY id DESC LIMIT 1`);
    expect(event.rows[0]).toEqual({ payload: { action: 'reverted', taskId } });
  });

  it('re-creates a deleted project from its last snapshot', async () => {
    const project = (await app.call('POST', '/api/projects', { body: { name: 'Phoenix' } })).body;
    await app.call('DELETE', `/api/projects/${project.id}`);
    expect((await app.call('GET', `/api/projects/${project.id}`)).status).toBe(404);
    const last = (await app.call('GET', `/api/snapshots/project/${project.id}`)).body.snapshots[0];
    expect(last.reason).toBe('deleted');
    const res = await app.call('POST', `/api/snapshots/${last.id}/revert`);
    expect(res.status).toBe(200);
    expect((await app.call('GET', `/api/projects/${project.id}`)).body.name).toBe('Phoenix');
  });

  it('refuses to revert what cannot be reverted, an unknown snapshot, and a bad body', async () => {
    await app.call('POST', '/api/agents/heartbeat', { body: { agent_name: 'h-agent' } });
    const heartbeat = (await app.call('GET', '/api/snapshots/agent/h-agent')).body.snapshots[0];
    const refused = await app.call('POST', `/api/snapshots/${heartbeat.id}/revert`);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/cannot be reverted/);
    expect((await app.call('POST', `/api/snapshots/${UNKNOWN}/revert`)).status).toBe(404);
    expect((await app.call('POST', `/api/snapshots/${heartbeat.id}/revert`, { body: { actor: 5 } })).status).toBe(400);
    expect((await app.call('POST', '/api/snapshots/not-a-uuid/revert')).status).toBe(400);
  });

  it('never answers 5xx to random revert bodies', async () => {
    const any = (await app.call('GET', `/api/snapshots/task/${taskId}`)).body.snapshots[0];
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.record({ actor: fc.oneof(fc.string(), fc.integer()) }, { requiredKeys: [] }), fc.anything()),
        async (b) => {
          const res = await app.call('POST', `/api/snapshots/${any.id}/revert`, { body: b });
          expect(res.status).toBeLessThan(500);
        },
      ),
      { numRuns: 30 },
    );
  });
});
