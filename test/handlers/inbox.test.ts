import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { inboxSeverities } from '../../core/inbox/inbox';
import { claimedRun, templateWithRoute, useWorkflowApp } from './workflow-support';

/** GET /api/inbox: what needs the operator in one request; each kind appears while its condition holds and leaves once acted on (docs/console-api.md). */
const app = useWorkflowApp({ emptyQueue: true });
let type: string;
let project: string;

type Item = { id: string; kind: string; severity: string; since: string | null; actions: string[] } & Record<string, unknown>;
async function inbox(query = ''): Promise<{ count: number; fleet: Record<string, number>; items: Item[]; generated_at: string }> {
  const res = await app.call('GET', `/api/inbox${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}
const itemOf = async (id: string) => (await inbox('?limit=500')).items.find((i) => i.id === id);

async function task(fields: Record<string, unknown> = {}) {
  const res = await app.call('POST', '/api/tasks', { body: { project_id: project, title: 'inbox task', ...fields } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; title: string };
}

async function ok(method: string, path: string, body?: unknown) {
  const res = await app.call(method, path, { body });
  expect(res.status, `${method} ${path} ${JSON.stringify(res.body)}`).toBe(200);
  return res.body;
}

// the workflow app empties routing before each test: each routes its own template to writer
beforeEach(async () => {
  type = await templateWithRoute(app, { steps: ['draft', 'review'], agent: 'writer' });
});

beforeAll(async () => {
  project = (await app.call('POST', '/api/projects', { body: { name: 'Inbox' } })).body.id;
});

describe('GET /api/inbox: each kind while its condition holds', () => {
  it('lists a pending approval with its run, task, agent and cost, and drops it once approved (PATCH /api/approvals/:id)', async () => {
    const t = await task({ title: 'publish the post' });
    const run = await claimedRun(app, type);
    await app.db.query('UPDATE workflow_runs SET task_id = $2, cost_estimate = 1.25 WHERE id = $1', [run.id, t.id]);
    await ok('POST', `/api/workflow-runs/${run.id}/start`, { session_id: run.session });
    const opened = await app.call('POST', `/api/workflow-runs/${run.id}/approvals`, {
      body: { session_id: run.session, step_name: 'review' },
    });
    expect(opened.status).toBe(201);
    const approvalId = opened.body.approval.id;
    expect(await itemOf(`approval:${approvalId}`)).toMatchObject({
      kind: 'approval',
      severity: 'high',
      actions: ['approve', 'reject'],
      approval_id: approvalId,
      run_id: run.id,
      task_id: t.id,
      task_title: 'publish the post',
      agent_id: 'writer',
      action: 'review',
      cost_so_far_usd: 1.25,
      executes: expect.stringContaining(run.id),
    });
    await ok('PATCH', `/api/approvals/${approvalId}`, { decision: 'approved' });
    expect(await itemOf(`approval:${approvalId}`)).toBeUndefined();
  });

  it('lists a failed run that is the latest of an open task, and drops it once retried (override-failure to queued)', async () => {
    const t = await task({ title: 'flaky job' });
    const { rows } = await app.db.query<{ id: string }>(
      `INSERT INTO workflow_runs (id, workflow_type, owner_agent_id, task_id, status, last_error, finished_at)
       VALUES (gen_random_uuid(), $1, 'writer', $2, 'timed_out', 'no answer in 30 min', $3) RETURNING id`,
      [type, t.id, app.clock().now()],
    );
    const runId = rows[0]!.id;
    expect(await itemOf(`failed_run:${runId}`)).toMatchObject({
      kind: 'failed_run',
      severity: 'high',
      actions: ['retry'],
      run_id: runId,
      task_id: t.id,
      task_title: 'flaky job',
      agent_id: 'writer',
      status: 'timed_out',
      error: 'no answer in 30 min',
    });
    await ok('POST', `/api/workflow-runs/${runId}/override-failure`, { next_status: 'queued' });
    expect(await itemOf(`failed_run:${runId}`)).toBeUndefined();
  });

  it('leaves out a failed run of a finished task and one a newer run of the task replaced', async () => {
    const done = await task({ title: 'done already', status: 'completed' });
    const open = await task({ title: 'open' });
    const { rows } = await app.db.query<{ id: string }>(
      `INSERT INTO workflow_runs (id, workflow_type, task_id, status, created_at) VALUES
         (gen_random_uuid(), $1, $2, 'failed', $4), (gen_random_uuid(), $1, $3, 'failed', $4 - interval '1 minute'), (gen_random_uuid(), $1, $3, 'queued', $4)
       RETURNING id`,
      [type, done.id, open.id, app.clock().now()],
    );
    const items = (await inbox('?limit=500')).items.map((i) => i.id);
    expect(items).not.toContain(`failed_run:${rows[0]!.id}`);
    expect(items).not.toContain(`failed_run:${rows[1]!.id}`);
  });

  it('lists a silent claimed run as stuck and its agent as silent, and drops both once the run is cancelled', async () => {
    const run = await claimedRun(app, type);
    expect(await itemOf(`stuck_run:${run.id}`)).toBeUndefined();
    expect(await itemOf('agent_silent:writer')).toBeUndefined();
    app.clock().advance(11 * 60_000);
    expect(await itemOf(`stuck_run:${run.id}`)).toMatchObject({
      kind: 'stuck_run',
      severity: 'high',
      actions: ['cancel'],
      run_id: run.id,
      agent_id: 'writer',
      status: 'claimed',
      stuck_reason: 'silent_claim',
    });
    expect(await itemOf('agent_silent:writer')).toMatchObject({
      kind: 'agent_silent',
      severity: 'high',
      actions: [],
      agent_id: 'writer',
      live_runs: 1,
    });
    await ok('POST', `/api/workflow-runs/${run.id}/cancel`, {});
    expect(await itemOf(`stuck_run:${run.id}`)).toBeUndefined();
    expect(await itemOf('agent_silent:writer')).toBeUndefined();
  });

  it('does not call an agent silent while it heartbeats', async () => {
    const run = await claimedRun(app, type);
    app.clock().advance(4 * 60_000);
    await ok('POST', '/api/agents/heartbeat', { agent_name: 'writer' });
    app.clock().advance(4 * 60_000);
    expect(await itemOf('agent_silent:writer')).toBeUndefined();
    await ok('POST', `/api/workflow-runs/${run.id}/cancel`, {});
  });

  it('lists a budget at its cap by the state its action puts it in, and drops it once the cap is raised (PATCH /api/budgets/:id)', async () => {
    const created = await app.call('POST', '/api/budgets', {
      body: { name: 'Daily spend', scope: 'fleet', period: 'daily', cap_usd: 5, action_on_exceed: 'hard_stop' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const budgetId = created.body.budget?.id ?? created.body.id;
    await app.db.query(
      `INSERT INTO workflow_runs (id, workflow_type, owner_agent_id, status, cost_estimate, reported_at) VALUES (gen_random_uuid(), $1, 'writer', 'completed', 6, $2)`,
      [type, app.clock().now()],
    );
    expect(await itemOf(`budget:${budgetId}`)).toMatchObject({
      kind: 'budget',
      severity: 'critical',
      state: 'hard_stopped',
      actions: ['raise_cap', 'resume'],
      name: 'Daily spend',
      spent_usd: 6,
      cap_usd: 5,
    });
    await ok('PATCH', `/api/budgets/${budgetId}`, { action_on_exceed: 'warn' });
    expect(await itemOf(`budget:${budgetId}`)).toMatchObject({ severity: 'medium', state: 'warned', actions: ['raise_cap'] });
    await ok('PATCH', `/api/budgets/${budgetId}`, { cap_usd: 50 });
    expect(await itemOf(`budget:${budgetId}`)).toBeUndefined();
  });

  it('lists an agent whose dispatch is paused, and drops it once resumed (POST /api/agents/:agent/resume-dispatch)', async () => {
    const until = new Date(app.clock().now().getTime() + 15 * 60_000);
    await app.db.query(
      `INSERT INTO agent_dispatch_controls (agent_id, dispatch_paused_until, pause_reason) VALUES ('quota-hit', $1, 'provider quota exhausted')`,
      [until],
    );
    expect(await itemOf('agent_paused:quota-hit')).toMatchObject({
      kind: 'agent_paused',
      severity: 'medium',
      actions: ['resume_dispatch'],
      agent_id: 'quota-hit',
      paused_until: until.toISOString(),
      reason: 'provider quota exhausted',
    });
    await ok('POST', '/api/agents/quota-hit/resume-dispatch', {});
    expect(await itemOf('agent_paused:quota-hit')).toBeUndefined();
  });

  it('lists a blocked task with its reason, and drops it once moved on', async () => {
    const t = await task({ title: 'waits on legal', status: 'blocked', metadata: { blocked_reason: 'legal review pending' } });
    const plain = await task({ title: 'blocked without a reason', status: 'blocked' });
    expect(await itemOf(`blocked_task:${t.id}`)).toMatchObject({
      kind: 'blocked_task',
      severity: 'medium',
      task_title: 'waits on legal',
      reason: 'legal review pending',
      detail: 'legal review pending',
    });
    expect(await itemOf(`blocked_task:${plain.id}`)).toMatchObject({ reason: 'manual' });
    await ok('POST', `/api/tasks/${t.id}/move`, { status: 'ready' });
    await ok('DELETE', `/api/tasks/${plain.id}`);
    expect(await itemOf(`blocked_task:${t.id}`)).toBeUndefined();
    expect(await itemOf(`blocked_task:${plain.id}`)).toBeUndefined();
  });

  it('lists a claim whose lease lapsed, not again as a doctor finding, and drops it once repaired (POST /api/doctor/repair)', async () => {
    const t = await task({ title: 'claimed then forgotten', status: 'ready' });
    await ok('POST', '/api/agent/claim', { task_id: t.id, agent_name: 'forgetful', lease_seconds: 60 });
    expect(await itemOf(`expired_claim:${t.id}`)).toBeUndefined();
    app.clock().advance(61_000);
    const item = await itemOf(`expired_claim:${t.id}`);
    expect(item).toMatchObject({
      kind: 'expired_claim',
      severity: 'medium',
      actions: ['repair'],
      task_title: 'claimed then forgotten',
      agent_id: 'forgetful',
    });
    expect(new Date(item!.lease_expired_at as string).getTime()).toBe(app.clock().now().getTime() - 1000);
    expect(await itemOf('doctor_finding:expired_task_lease')).toBeUndefined();
    await ok('POST', '/api/doctor/repair', { kinds: ['expired_task_lease'] });
    expect(await itemOf(`expired_claim:${t.id}`)).toBeUndefined();
  });

  it('lists a doctor finding by check with its count, and drops it once repaired', async () => {
    const t = await task({ title: 'locked without lease' });
    await app.db.query(`UPDATE tasks SET locked_by = 'ghost', locked_at = $2, lease_expires_at = NULL WHERE id = $1`, [
      t.id,
      app.clock().now(),
    ]);
    expect(await itemOf('doctor_finding:lock_without_lease')).toMatchObject({
      kind: 'doctor_finding',
      severity: 'low',
      actions: ['repair'],
      check: 'lock_without_lease',
      count: 1,
    });
    const dry = await app.call('POST', '/api/doctor/repair', { body: { kinds: ['lock_without_lease'], dry_run: true } });
    expect(dry.status).toBe(200);
    expect(await itemOf('doctor_finding:lock_without_lease')).toBeDefined();
    await ok('POST', '/api/doctor/repair', { kinds: ['lock_without_lease'] });
    expect(await itemOf('doctor_finding:lock_without_lease')).toBeUndefined();
  });

  it('lists a failing webhook with its failures and last error, and drops it once turned off (PATCH /api/webhooks/:id)', async () => {
    // arranged in the table: creating one through the API resolves its host, and this machine has no network
    const { rows } = await app.db.query<{ id: string }>(
      `INSERT INTO webhooks (id, url, events, secret, failing, cursor, created_by)
       VALUES (gen_random_uuid(), 'https://hooks.example.test/in', '{task:changed}', 'whsec-test', true, 0, 'ops') RETURNING id`,
    );
    const hook = rows[0]!.id;
    await app.db.query(
      `INSERT INTO webhook_deliveries (id, webhook_id, event_type, payload, event_at, status, attempts, last_error)
       VALUES (gen_random_uuid(), $1, 'task.created', '{}', $2, 'failed', 5, 'connect ECONNREFUSED')`,
      [hook, app.clock().now()],
    );
    expect(await itemOf(`webhook_failing:${hook}`)).toMatchObject({
      kind: 'webhook_failing',
      severity: 'low',
      url: 'https://hooks.example.test/in',
      failures: 1,
      last_error: 'connect ECONNREFUSED',
    });
    await ok('PATCH', `/api/webhooks/${hook}`, { active: false });
    expect(await itemOf(`webhook_failing:${hook}`)).toBeUndefined();
  });
});

describe('GET /api/inbox: the list', () => {
  it('orders most severe first, then oldest first, counts every item and cuts at limit', async () => {
    for (let i = 0; i < 3; i++) {
      app.clock().advance(1000);
      await task({ title: `blocked ${i}`, status: 'blocked' });
    }
    await app.db.query(
      `INSERT INTO agent_dispatch_controls (agent_id, dispatch_paused_until, pause_reason) VALUES ('order-a', $1, 'rate limited')`,
      [new Date(app.clock().now().getTime() + 60_000)],
    );
    const t = await task({ title: 'failing' });
    await app.db.query(`INSERT INTO workflow_runs (id, workflow_type, task_id, status) VALUES (gen_random_uuid(), $1, $2, 'failed')`, [
      type,
      t.id,
    ]);
    const stop = await app.call('POST', '/api/budgets', {
      body: { name: 'Hard stop', scope: 'fleet', period: 'monthly', cap_usd: 1, action_on_exceed: 'hard_stop' },
    });
    expect(stop.status, JSON.stringify(stop.body)).toBe(201);
    await app.db.query(
      `INSERT INTO workflow_runs (id, workflow_type, status, cost_estimate, reported_at) VALUES (gen_random_uuid(), $1, 'completed', 2, $2)`,
      [type, app.clock().now()],
    );
    const all = await inbox('?limit=500');
    expect(all.count).toBe(all.items.length);
    expect(all.count).toBeGreaterThanOrEqual(5);
    const rank = (s: string) => inboxSeverities.indexOf(s as (typeof inboxSeverities)[number]);
    for (let i = 1; i < all.items.length; i++) {
      const [a, b] = [all.items[i - 1]!, all.items[i]!];
      expect(rank(a.severity) <= rank(b.severity), `${a.id} before ${b.id}`).toBe(true);
      if (a.severity === b.severity && a.since && b.since) expect(a.since <= b.since, `${a.id} before ${b.id}`).toBe(true);
    }
    // the hard-stopped budget (critical) before the failed run (high), though the budget has no `since`
    expect(all.items.slice(0, 2).map((i) => [i.kind, i.severity])).toEqual([
      ['budget', 'critical'],
      ['failed_run', 'high'],
    ]);
    // among the medium items, the pause (no `since`) after every blocked task
    const medium = all.items.filter((i) => i.severity === 'medium').map((i) => i.kind);
    expect(medium.lastIndexOf('blocked_task')).toBeLessThan(medium.indexOf('agent_paused'));
    const blocked = all.items.filter((i) => i.kind === 'blocked_task').map((i) => i.task_title);
    expect(blocked.slice(-3)).toEqual(['blocked 0', 'blocked 1', 'blocked 2']);
    const two = await inbox('?limit=2');
    expect(two.count).toBe(all.count);
    expect(two.items).toEqual(all.items.slice(0, 2));
    expect((await inbox()).items).toHaveLength(Math.min(200, all.count));
  });

  it('counts the fleet: live and queued runs, agents online of all that ever reported', async () => {
    await claimedRun(app, type);
    await app.call('POST', '/api/workflow-runs', { body: { workflow_type: type } });
    await ok('POST', '/api/agents/heartbeat', { agent_name: 'fleet-on' });
    await ok('POST', '/api/agents/heartbeat', { agent_name: 'fleet-off' });
    app.clock().advance(6 * 60_000);
    await ok('POST', '/api/agents/heartbeat', { agent_name: 'fleet-on' });
    const { rows } = await app.db.query<{ live: number; queued: number; agents: number }>(
      `SELECT count(*) FILTER (WHERE status IN ('dispatched', 'claimed', 'running', 'waiting_for_approval'))::int AS live,
              count(*) FILTER (WHERE status = 'queued')::int AS queued, (SELECT count(*)::int FROM agent_heartbeats) AS agents FROM workflow_runs`,
    );
    const { fleet } = await inbox();
    expect(fleet).toEqual({
      live_runs: rows[0]!.live,
      queued_runs: rows[0]!.queued,
      agents_online: rows[0]!.agents - 1,
      agents_total: rows[0]!.agents,
    });
    expect(fleet.live_runs).toBeGreaterThanOrEqual(1);
    expect(fleet.queued_runs).toBeGreaterThanOrEqual(1);
  });

  it('answers an empty list with the fleet when nothing waits, over HTTP too', async () => {
    await app.db.query(`DELETE FROM tasks; DELETE FROM budgets; DELETE FROM webhooks`);
    const res = await app.http('GET', '/api/inbox');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      count: 0,
      items: [],
      generated_at: app.clock().now().toISOString(),
      fleet: { live_runs: 0, queued_runs: 0 },
    });
  });

  it.each(['?limit=0', '?limit=501', '?limit=many', '?limit=-1'])('refuses %s with 400 naming limit', async (query) => {
    const res = await app.call('GET', `/api/inbox${query}`);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toMatch(/limit/);
  });
});
