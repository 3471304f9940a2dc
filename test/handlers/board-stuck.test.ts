import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { claimedRun, templateWithRoute, useWorkflowApp } from './workflow-support';

/** GET /api/views/board?include=stuck: why cards are stuck beyond what their rows say (docs/console-api.md), in the board's one request. */
const app = useWorkflowApp({ emptyQueue: true });
let type: string;
let project: string;

type Stuck = Record<string, { kind: string; reason: string }>;
async function stuck(projectId = project): Promise<Stuck> {
  const res = await app.call('GET', `/api/views/board?project_id=${projectId}&include=stuck`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(Object.keys(res.body)).toEqual(['project', 'workflow', 'columns', 'stuck']);
  return res.body.stuck;
}

async function task(title: string, fields: Record<string, unknown> = {}) {
  const res = await app.call('POST', '/api/tasks', { body: { project_id: project, title, ...fields } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

async function ok(method: string, path: string, body?: unknown) {
  const res = await app.call(method, path, { body });
  expect(res.status, `${method} ${path} ${JSON.stringify(res.body)}`).toBe(200);
  return res.body;
}

const queuedRunOf = async (taskId: string) =>
  (
    await app.db.query<{ id: string }>(
      `INSERT INTO workflow_runs (id, workflow_type, task_id, status) VALUES (gen_random_uuid(), $1, $2, 'queued') RETURNING id`,
      [type, taskId],
    )
  ).rows[0]!.id;

beforeEach(async () => {
  type = await templateWithRoute(app, { steps: ['draft', 'review'], agent: 'writer' });
  await app.db.query('DELETE FROM budgets');
});

beforeAll(async () => {
  project = (await app.call('POST', '/api/projects', { body: { name: 'Stuck cards' } })).body.id;
});

describe('GET /api/views/board?include=stuck', () => {
  it('names a task whose run waits for an approval, and forgets it once the approval is decided', async () => {
    const id = await task('publish the post');
    const run = await claimedRun(app, type);
    await app.db.query('UPDATE workflow_runs SET task_id = $2 WHERE id = $1', [run.id, id]);
    await ok('POST', `/api/workflow-runs/${run.id}/start`, { session_id: run.session });
    const opened = await app.call('POST', `/api/workflow-runs/${run.id}/approvals`, {
      body: { session_id: run.session, step_name: 'review' },
    });
    expect(opened.status).toBe(201);
    expect((await stuck())[id]).toEqual({ kind: 'approval', reason: 'Waiting for an approval of review' });
    await ok('PATCH', `/api/approvals/${opened.body.approval.id}`, { decision: 'approved' });
    expect((await stuck())[id]).toBeUndefined();
    await ok('POST', `/api/workflow-runs/${run.id}/cancel`, {});
  });

  it('names a task whose queued run a budget at its cap holds, and forgets it once the budget only warns', async () => {
    const id = await task('costly report');
    await queuedRunOf(id);
    const created = await app.call('POST', '/api/budgets', {
      body: { name: 'Daily spend', scope: 'project', scope_id: project, period: 'daily', cap_usd: 5, action_on_exceed: 'pause_new_runs' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const budgetId = created.body.budget?.id ?? created.body.id;
    expect((await stuck())[id]).toBeUndefined(); // under its cap
    await app.db.query(
      `INSERT INTO workflow_runs (id, workflow_type, owner_agent_id, task_id, status, cost_estimate, reported_at) VALUES (gen_random_uuid(), $1, 'writer', $2, 'completed', 6, $3)`,
      [type, id, app.clock().now()],
    );
    expect((await stuck())[id]).toEqual({ kind: 'budget', reason: 'Held by budget Daily spend (paused at its cap)' });
    await ok('PATCH', `/api/budgets/${budgetId}`, { action_on_exceed: 'warn' });
    expect((await stuck())[id]).toBeUndefined();
  });

  it('names a task held by an agent whose dispatch is paused, and forgets it once dispatch resumes', async () => {
    const id = await task('claimed by a paused agent');
    await app.db.query(`UPDATE tasks SET locked_by = 'quota-hit', lease_expires_at = $2 WHERE id = $1`, [
      id,
      new Date(app.clock().now().getTime() + 30 * 60_000),
    ]);
    const queuedFor = await task('queued for the paused agent');
    await queuedRunOf(queuedFor);
    await app.db.query(
      `INSERT INTO agent_dispatch_controls (agent_id, dispatch_paused_until, pause_reason) VALUES ('quota-hit', $1, 'provider quota exhausted'), ('writer', $1, 'rate limited')`,
      [new Date(app.clock().now().getTime() + 15 * 60_000)],
    );
    const found = await stuck();
    expect(found[id]).toEqual({ kind: 'agent_paused', reason: 'Its agent quota-hit is paused (provider quota exhausted)' });
    expect(found[queuedFor]).toEqual({ kind: 'agent_paused', reason: 'Its agent writer is paused (rate limited)' });
    await ok('POST', '/api/agents/quota-hit/resume-dispatch', {});
    await ok('POST', '/api/agents/writer/resume-dispatch', {});
    const after = await stuck();
    expect(after[id]).toBeUndefined();
    expect(after[queuedFor]).toBeUndefined();
  });

  it('names a task whose run’s agent went silent, and forgets it once the agent heartbeats', async () => {
    const id = await task('held by a silent agent');
    const run = await claimedRun(app, type);
    await app.db.query('UPDATE workflow_runs SET task_id = $2 WHERE id = $1', [run.id, id]);
    expect((await stuck())[id]).toBeUndefined();
    app.clock().advance(11 * 60_000);
    expect((await stuck())[id]).toEqual({ kind: 'agent_silent', reason: 'Its agent writer is silent: no sign of life for 11 min' });
    await ok('POST', '/api/agents/heartbeat', { agent_name: 'writer' });
    expect((await stuck())[id]).toBeUndefined();
    await ok('POST', `/api/workflow-runs/${run.id}/cancel`, {});
  });

  it('lists only the asked project’s tasks, and answers the board unchanged without include', async () => {
    const other = (await app.call('POST', '/api/projects', { body: { name: 'Elsewhere' } })).body.id as string;
    const res = await app.call('POST', '/api/tasks', { body: { project_id: other, title: 'elsewhere' } });
    await app.db.query(`UPDATE tasks SET locked_by = 'quota-hit' WHERE id = $1`, [res.body.id]);
    await app.db.query(`INSERT INTO agent_dispatch_controls (agent_id, dispatch_paused_until) VALUES ('quota-hit', $1)`, [
      new Date(app.clock().now().getTime() + 60_000),
    ]);
    expect((await stuck())[res.body.id]).toBeUndefined();
    expect((await stuck(other))[res.body.id]).toEqual({ kind: 'agent_paused', reason: 'Its agent quota-hit is paused' });
    const plain = await app.call('GET', `/api/views/board?project_id=${other}`);
    expect(plain.status).toBe(200);
    expect(Object.keys(plain.body)).toEqual(['project', 'workflow', 'columns']);
  });

  it('with limit_per_column names only the tasks the answer lists', async () => {
    const shown = (await app.call('POST', '/api/projects', { body: { name: 'First screenful, stuck' } })).body.id as string;
    const claimed = async (title: string, priority: string) => {
      const res = await app.call('POST', '/api/tasks', { body: { project_id: shown, title, priority, status: 'in_progress' } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      await app.db.query(`UPDATE tasks SET locked_by = 'paused-holder' WHERE id = $1`, [res.body.id]);
      return res.body.id as string;
    };
    const listed = await claimed('first of its column', 'critical');
    const left = await claimed('second of its column', 'low');
    await app.db.query(`INSERT INTO agent_dispatch_controls (agent_id, dispatch_paused_until) VALUES ('paused-holder', $1)`, [
      new Date(app.clock().now().getTime() + 60_000),
    ]);
    const reason = { kind: 'agent_paused', reason: 'Its agent paused-holder is paused' };
    expect(await stuck(shown)).toEqual({ [listed]: reason, [left]: reason });
    const first = await app.call('GET', `/api/views/board?project_id=${shown}&include=stuck&limit_per_column=1`);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.columns.in_progress.map((t: { id: string }) => t.id)).toEqual([listed]);
    expect(first.body.stuck).toEqual({ [listed]: reason });
    expect(first.body.counts.in_progress).toBe(2);
  });

  it('refuses an include it does not know with 400 naming the field', async () => {
    const res = await app.call('GET', `/api/views/board?project_id=${project}&include=everything`);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('include');
  });
});
