import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useTestApp } from '../support/use-app';
import { fakeRuntime, fakeTime, templateWithRoute } from './workflow-support';

/** Runs created exactly once (Idempotency-Key) and one live run per task where asked. */

const app = useTestApp();
let clock: ReturnType<typeof fakeTime>;
let project: string;
beforeAll(async () => {
  project = (await app.call('POST', '/api/projects', { body: { name: 'Exactly once' } })).body.id;
});
beforeEach(() => {
  clock = fakeTime(app);
  fakeRuntime(app);
});

const HOUR = 3_600_000;

async function runCount(type: string) {
  const { rows } = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM workflow_runs WHERE workflow_type = $1', [type]);
  return rows[0]!.n;
}

async function newTask() {
  return (await app.call('POST', '/api/tasks', { body: { project_id: project, title: 'exclusive' } })).body.id as string;
}

describe('Idempotency-Key on POST /api/workflow-runs', () => {
  it('answers the first run (200, duplicate: true) for the same key and body, 409 idempotency_conflict for another body', async () => {
    const type = await templateWithRoute(app);
    const headers = { 'Idempotency-Key': 'launch-42' };
    const first = await app.call('POST', '/api/workflow-runs', { body: { workflow_type: type, input_payload: { a: 1 } }, headers });
    expect(first.status).toBe(201);
    expect(first.body.duplicate).toBeUndefined();
    // the same request, with defaults spelled out and keys in another order
    const again = await app.call('POST', '/api/workflow-runs', {
      body: { metadata: {}, input_payload: { a: 1 }, workflow_type: type },
      headers,
    });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: first.body.id, duplicate: true });
    const other = await app.call('POST', '/api/workflow-runs', { body: { workflow_type: type, input_payload: { a: 2 } }, headers });
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ error: 'idempotency_conflict', run_id: first.body.id });
    expect(await runCount(type)).toBe(1);
    // the body's idempotency_key works too, and is the same key space
    const viaBody = await app.call('POST', '/api/workflow-runs', {
      body: { workflow_type: type, input_payload: { a: 1 }, idempotency_key: 'launch-42' },
    });
    expect(viaBody.status).toBe(200);
    expect(viaBody.body.id).toBe(first.body.id);
    // without a key, the spec's behaviour: every request creates a run
    expect((await app.call('POST', '/api/workflow-runs', { body: { workflow_type: type, input_payload: { a: 1 } } })).status).toBe(201);
    expect(await runCount(type)).toBe(2);
    const audit = await app.db.query(
      `SELECT count(*)::int AS n FROM audit_log WHERE entity_type = 'workflow_run' AND action = 'created' AND entity_id = $1`,
      [first.body.id],
    );
    expect(audit.rows[0]).toEqual({ n: 1 });
  });

  it('keeps keys at least 24 hours; after that the key creates a new run', async () => {
    const type = await templateWithRoute(app);
    const headers = { 'idempotency-key': 'daily' };
    const first = await app.call('POST', '/api/workflow-runs', { body: { workflow_type: type }, headers });
    clock.advance(24 * HOUR - 1);
    expect((await app.call('POST', '/api/workflow-runs', { body: { workflow_type: type }, headers })).body.id).toBe(first.body.id);
    clock.advance(1);
    const later = await app.call('POST', '/api/workflow-runs', { body: { workflow_type: type }, headers });
    expect(later.status).toBe(201);
    expect(later.body.id).not.toBe(first.body.id);
    expect((await app.call('POST', '/api/workflow-runs', { body: { workflow_type: type }, headers })).body.id).toBe(later.body.id);
  });

  it('refuses bad keys with 400 naming the key, and a failed create leaves no key behind', async () => {
    const type = await templateWithRoute(app);
    for (const key of ['', 'has space', 'x'.repeat(256)]) {
      const res = await app.call('POST', '/api/workflow-runs', { body: { workflow_type: type }, headers: { 'Idempotency-Key': key } });
      expect(res.status, key).toBe(400);
      expect(res.body.error).toMatch(/Idempotency-Key/);
    }
    const bodyKey = await app.call('POST', '/api/workflow-runs', { body: { workflow_type: type, idempotency_key: 7 } });
    expect(bodyKey.status).toBe(400);
    expect(bodyKey.body.error).toContain('idempotency_key');
    const bad = await app.call('POST', '/api/workflow-runs', {
      body: { workflow_type: 'no-such-template' },
      headers: { 'Idempotency-Key': 'unlucky' },
    });
    expect(bad.status).toBe(400);
    const good = await app.call('POST', '/api/workflow-runs', { body: { workflow_type: type }, headers: { 'Idempotency-Key': 'unlucky' } });
    expect(good.status).toBe(201);
  });

  it('50 concurrent creates with one key over HTTP create exactly one run', async () => {
    const type = await templateWithRoute(app);
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        app.http('POST', '/api/workflow-runs', {
          body: { workflow_type: type, input_payload: { n: 1 } },
          headers: { 'Idempotency-Key': `burst-${type}` },
        }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 200)).toHaveLength(49);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(await runCount(type)).toBe(1);
  });
});

describe('exclusive_per_task', () => {
  it('a routing entry with exclusive_per_task refuses a second run while the first is in play (409 active_run_exists, run_id)', async () => {
    const type = await templateWithRoute(app);
    const put = await app.call('PUT', `/api/workflow-routing/${type}`, { body: { agent_id: 'writer', exclusive_per_task: true } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ exclusive_per_task: true, max_concurrent: null });
    const task = await newTask();
    const first = await app.call('POST', '/api/workflow-runs', { body: { workflow_type: type, task_id: task } });
    expect(first.status).toBe(201);
    const second = await app.call('POST', '/api/workflow-runs', { body: { workflow_type: type, task_id: task } });
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ error: 'active_run_exists', run_id: first.body.id });
    // another task, or no task, is not affected
    expect((await app.call('POST', '/api/workflow-runs', { body: { workflow_type: type, task_id: await newTask() } })).status).toBe(201);
    expect((await app.call('POST', '/api/workflow-runs', { body: { workflow_type: type } })).status).toBe(201);
    // once the run ends, a new one may start
    expect((await app.call('POST', `/api/workflow-runs/${first.body.id}/cancel`, { body: {} })).status).toBe(200);
    expect((await app.call('POST', '/api/workflow-runs', { body: { workflow_type: type, task_id: task } })).status).toBe(201);
  });

  it('a template with exclusive_per_task does the same, and the default (false) keeps the spec: many runs per task', async () => {
    const exclusive = await templateWithRoute(app);
    const patched = await app.call('PATCH', `/api/workflow-templates/${exclusive}`, { body: { exclusive_per_task: true } });
    expect(patched.status).toBe(200);
    expect(patched.body.exclusive_per_task).toBe(true);
    const open = await templateWithRoute(app);
    const task = await newTask();
    expect((await app.call('POST', '/api/workflow-runs', { body: { workflow_type: open, task_id: task } })).status).toBe(201);
    expect((await app.call('POST', '/api/workflow-runs', { body: { workflow_type: open, task_id: task } })).status).toBe(201);
    // the open workflow's live runs count: the task already has a run in play
    const refused = await app.call('POST', '/api/workflow-runs', { body: { workflow_type: exclusive, task_id: task } });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('active_run_exists');
    expect((await app.call('PATCH', `/api/workflow-templates/${exclusive}`, { body: { exclusive_per_task: 'yes' } })).status).toBe(400);
    expect(
      (await app.call('PUT', `/api/workflow-routing/${open}`, { body: { agent_id: 'writer', exclusive_per_task: 1 } })).body.error,
    ).toContain('exclusive_per_task');
  });

  it('20 concurrent creates for one task on an exclusive workflow create one run', async () => {
    const type = await templateWithRoute(app);
    await app.call('PUT', `/api/workflow-routing/${type}`, { body: { agent_id: 'writer', exclusive_per_task: true } });
    const task = await newTask();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => app.http('POST', '/api/workflow-runs', { body: { workflow_type: type, task_id: task } })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409 && r.body.error === 'active_run_exists')).toHaveLength(19);
  });
});
