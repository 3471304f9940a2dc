import { randomUUID } from 'node:crypto';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useFakeRuntimeApp } from '../support/use-app';
import { createRun, fakeTime, templateWithRoute, tick } from '../handlers/workflow-support';

/**
 * The console's two run routes (docs/console-api.md): GET /api/workflow-runs/:id/page, a run page in
 * one request, and GET /api/views/runs, the Runs screen in one request. On the fake runtime's state
 * directory, whose agent `main` indexes the session key agent:main:main:primary as sess-main-1.
 */
const app = useFakeRuntimeApp();
let clock: ReturnType<typeof fakeTime>;
let projectId: string;

beforeAll(async () => {
  projectId = (await app.call('POST', '/api/projects', { body: { name: 'Run pages' } })).body.id;
});
beforeEach(async () => {
  clock = fakeTime(app);
  await app.db.query('DELETE FROM workflow_runs');
  await app.db.query('DELETE FROM workflow_agent_routing');
  await app.db.query('DELETE FROM agent_dispatch_controls');
  await app.db.query('DELETE FROM dispatcher_ticks');
});

async function ok(method: string, path: string, body?: unknown, status = 200) {
  const res = await app.call(method, path, { body });
  expect(res.status, `${method} ${path} ${JSON.stringify(res.body)}`).toBe(status);
  return res.body;
}
const page = (id: string) => ok('GET', `/api/workflow-runs/${id}/page`);
const view = (query = '') => ok('GET', `/api/views/runs${query}`);

async function task(fields: Record<string, unknown> = {}): Promise<{ id: string; title: string }> {
  return ok('POST', '/api/tasks', { project_id: projectId, title: 'a task with runs', ...fields }, 201);
}

/** A run inserted as it stands, for the states a flow would take long to reach. */
async function runIn(status: string, fields: Record<string, unknown> = {}): Promise<string> {
  const id = randomUUID();
  const columns = { id, workflow_type: 'stored-type', status, created_at: clock.now(), ...fields };
  const names = Object.keys(columns);
  await app.db.query(
    `INSERT INTO workflow_runs (${names.join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')})`,
    Object.values(columns),
  );
  return id;
}

describe('GET /api/workflow-runs/:id/page', () => {
  it('answers a run’s whole life in one request: status changes and steps with their durations, approvals, artifacts, usage, session', async () => {
    const t = await task({ title: 'publish the post' });
    const type = await templateWithRoute(app, { steps: ['draft', 'review'], agent: 'main' });
    const run = await ok('POST', '/api/workflow-runs', { workflow_type: type, task_id: t.id }, 201);
    clock.advance(60_000);
    await tick(app);
    const session = 'agent:main:main:primary';
    clock.advance(5_000);
    await ok('POST', `/api/workflow-runs/${run.id}/claim`, { agent_id: 'main', session_id: session });
    clock.advance(1_000);
    await ok('POST', `/api/workflow-runs/${run.id}/start`, { session_id: session });
    clock.advance(120_000);
    await ok('PATCH', `/api/workflow-runs/${run.id}/steps/0`, { session_id: session, status: 'completed' });
    const asked = await ok('POST', `/api/workflow-runs/${run.id}/approvals`, { session_id: session, step_name: 'review' }, 201);
    clock.advance(30_000);
    await ok('PATCH', `/api/approvals/${asked.approval.id}`, { decision: 'approved', note: 'fine' });
    await ok(
      'POST',
      `/api/workflow-runs/${run.id}/artifacts`,
      { session_id: session, artifact_type: 'url', uri: 'https://example.com/post', title: 'The post' },
      201,
    );
    clock.advance(10_000);
    await ok('POST', `/api/workflow-runs/${run.id}/complete`, {
      session_id: session,
      input_tokens: 1200,
      output_tokens: 300,
      cost_estimate: 0.42,
      model_id: 'model-a',
    });

    const p = await page(run.id);
    expect(p.run).toMatchObject({ id: run.id, status: 'completed', task_id: t.id, task_title: 'publish the post', workflow_type: type });
    expect(p.actions).toEqual([]);
    expect(p.timeline.map((s: { status: string }) => s.status)).toEqual([
      'queued',
      'dispatched',
      'claimed',
      'running',
      'waiting_for_approval',
      'running',
      'completed',
    ]);
    expect(p.timeline.map((s: { duration_ms: number | null }) => s.duration_ms)).toEqual([
      60_000,
      5_000,
      1_000,
      120_000,
      30_000,
      10_000,
      null,
    ]);
    expect(p.timeline[0]).toMatchObject({ from: null, action: 'created' });
    expect(p.timeline[4]).toMatchObject({ from: 'running', actor: expect.any(String) });
    expect(p.steps).toMatchObject([
      { step_order: 0, step_name: 'draft', status: 'completed', duration_ms: 120_000 },
      { step_order: 1, step_name: 'review' },
    ]);
    expect(p.approvals).toMatchObject([{ id: asked.approval.id, step_name: 'review', status: 'approved', note: 'fine' }]);
    expect(p.artifacts).toMatchObject([{ artifact_type: 'url', uri: 'https://example.com/post', title: 'The post' }]);
    expect(p.usage).toMatchObject({
      input_tokens: 1200,
      output_tokens: 300,
      cost: 0.42,
      price_source: 'reported',
      billed_cost: 0.42,
      shadow_cost: null,
      model_id: 'model-a',
    });
    expect(p.session).toEqual({ key: session, agent_id: 'main', session_id: 'sess-main-1', earlier_keys: [], live: false });
    expect(p.blockers).toEqual([]);
  });

  it('offers the buttons its status allows: Start and Cancel when queued, Cancel while worked on, Retry once it failed', async () => {
    expect((await page(await runIn('queued'))).actions).toEqual(['start', 'cancel']);
    expect((await page(await runIn('running'))).actions).toEqual(['cancel']);
    expect((await page(await runIn('waiting_for_approval'))).actions).toEqual(['cancel']);
    expect((await page(await runIn('failed'))).actions).toEqual(['retry']);
    expect((await page(await runIn('cancelled'))).actions).toEqual(['retry']);
    expect((await page(await runIn('completed'))).actions).toEqual([]);
  });

  it('says where the cost comes from: the price table, unpriced tokens, and a subscription’s shadow cost', async () => {
    const table = await page(await runIn('completed', { input_tokens: 100, output_tokens: 10, cost_estimate: 0.2, cost_source: 'table' }));
    expect(table.usage).toMatchObject({ price_source: 'table', cost: 0.2, billed_cost: 0.2, shadow_cost: null });
    const unpriced = await page(await runIn('completed', { input_tokens: 100, output_tokens: 10 }));
    expect(unpriced.usage).toMatchObject({ price_source: 'unpriced', cost: null, billed_cost: null });
    const subscription = await page(
      await runIn('completed', {
        input_tokens: 100,
        output_tokens: 10,
        cost_estimate: 1.5,
        cost_source: 'reported',
        billing: 'subscription',
      }),
    );
    expect(subscription.usage).toMatchObject({
      price_source: 'reported',
      billing: 'subscription',
      cost: 1.5,
      billed_cost: 0,
      shadow_cost: 1.5,
    });
    expect((await page(await runIn('queued'))).usage).toMatchObject({ price_source: 'none', cost: null });
  });

  it('lists the receipts of governed actions on the run and on its approvals, and none of another run', async () => {
    const mine = await runIn('running');
    const other = await runIn('running');
    const approval = randomUUID();
    await app.db.query(`INSERT INTO workflow_approvals (id, workflow_run_id, step_name, status) VALUES ($1, $2, 'review', 'pending')`, [
      approval,
      mine,
    ]);
    await app.db.query(`UPDATE workflow_runs SET status = 'waiting_for_approval' WHERE id = $1`, [mine]);
    await ok('POST', '/api/actions/execute', {
      actionId: randomUUID(),
      kind: 'approval.decide',
      targetId: approval,
      params: { decision: 'approved' },
    });
    clock.advance(1_000);
    await ok('POST', '/api/actions/execute', { actionId: randomUUID(), kind: 'run.cancel', targetId: mine, params: { reason: 'enough' } });
    await ok('POST', '/api/actions/execute', { actionId: randomUUID(), kind: 'run.cancel', targetId: other, params: {} });
    const p = await page(mine);
    expect(p.receipts.map((r: { kind: string; target_id: string; outcome: string }) => [r.kind, r.target_id, r.outcome])).toEqual([
      ['approval.decide', approval, 'executed'],
      ['run.cancel', mine, 'executed'],
    ]);
    expect(p.actions).toEqual(['retry']);
  });

  it('lists what blocks the run and its task, and nothing of other runs', async () => {
    const t = await task({ title: 'stuck behind a review', status: 'blocked', metadata: { blocked_reason: 'waiting for legal' } });
    const mine = await runIn('paused', { task_id: t.id, metadata: { pause_reason: 'holiday' } });
    await runIn('paused');
    const p = await page(mine);
    expect(p.blockers).toHaveLength(2);
    expect(p.blockers).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ sourceType: 'workflow_run', sourceId: mine, blockerType: 'paused', description: 'paused: holiday' }),
        expect.objectContaining({ sourceType: 'task', sourceId: t.id, description: 'waiting for legal' }),
      ]),
    );
  });

  it('resolves the session through the agent’s index, keeps the earlier keys, and leaves an unknown key unresolved', async () => {
    const live = await page(
      await runIn('running', { gateway_session_id: 'agent:main:main:primary', session_history: ['agent:main:subagent:run-abc'] }),
    );
    expect(live.session).toEqual({
      key: 'agent:main:main:primary',
      agent_id: 'main',
      session_id: 'sess-main-1',
      earlier_keys: ['agent:main:subagent:run-abc'],
      live: true,
    });
    const gone = await page(await runIn('failed', { gateway_session_id: 'agent:main:subagent:gone' }));
    expect(gone.session).toEqual({ key: 'agent:main:subagent:gone', agent_id: 'main', session_id: null, earlier_keys: [], live: false });
    const ghost = await page(await runIn('failed', { gateway_session_id: 'agent:ghost:main:x' }));
    expect(ghost.session).toMatchObject({ agent_id: 'ghost', session_id: null });
    const none = await page(await runIn('queued'));
    expect(none.session).toEqual({ key: null, agent_id: null, session_id: null, earlier_keys: [], live: true });
  });

  it('answers 404 for an unknown run and 400 for an id that is not a UUID, over HTTP too', async () => {
    const unknown = await app.call('GET', `/api/workflow-runs/${randomUUID()}/page`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatch(/not found/);
    for (const bad of ['not-a-uuid', '1', `${randomUUID()}x`]) {
      const res = await app.http('GET', `/api/workflow-runs/${bad}/page`);
      expect(res.status, bad).toBe(400);
      expect(res.body.error).toMatch(/id/);
    }
    const id = await runIn('queued');
    const over = await app.http('GET', `/api/workflow-runs/${id}/page`);
    expect(over.status).toBe(200);
    expect(over.body.run.id).toBe(id);
  });

  it('writes nothing: no audit row for a read', async () => {
    const id = await runIn('running');
    const before = await app.db.query('SELECT count(*)::int AS n FROM audit_log');
    await page(id);
    expect((await app.db.query('SELECT count(*)::int AS n FROM audit_log')).rows).toEqual(before.rows);
  });
});

describe('GET /api/views/runs', () => {
  it('lists runs newest first with their task, agent, cost source and buttons, filtered by status, type, agent and task', async () => {
    const t = await task({ title: 'filtered task' });
    const a = await runIn('queued', {
      workflow_type: 'alpha',
      target_agent_id: 'writer',
      task_id: t.id,
      created_at: new Date(clock.now().getTime() - 3000),
    });
    const b = await runIn('failed', {
      workflow_type: 'beta',
      owner_agent_id: 'editor',
      created_at: new Date(clock.now().getTime() - 2000),
      input_tokens: 5,
    });
    const c = await runIn('running', {
      workflow_type: 'alpha',
      owner_agent_id: 'writer',
      created_at: new Date(clock.now().getTime() - 1000),
      cost_estimate: 0.3,
      cost_source: 'table',
    });
    const all = await view();
    expect(all.runs.map((r: { id: string }) => r.id)).toEqual([c, b, a]);
    expect(all).toMatchObject({ total: 3, truncated: false });
    expect(all.runs[2]).toMatchObject({
      id: a,
      task_title: 'filtered task',
      agent_id: 'writer',
      actions: ['start', 'cancel'],
      price_source: 'none',
    });
    expect(all.runs[1]).toMatchObject({ id: b, agent_id: 'editor', actions: ['retry'], price_source: 'unpriced' });
    expect(all.runs[0]).toMatchObject({ id: c, actions: ['cancel'], price_source: 'table', cost_estimate: 0.3 });
    const ids = async (q: string) => (await view(q)).runs.map((r: { id: string }) => r.id);
    expect(await ids('?status=failed')).toEqual([b]);
    expect(await ids('?workflow_type=alpha')).toEqual([c, a]);
    expect(await ids('?agent=writer')).toEqual([c, a]);
    expect(await ids(`?task_id=${t.id}`)).toEqual([a]);
    expect(await ids('?workflow_type=alpha&status=running')).toEqual([c]);
    const limited = await view('?limit=1');
    expect(limited).toMatchObject({ total: 3, truncated: true });
    expect(limited.runs).toHaveLength(1);
  });

  it('shows the queue and the dispatcher: depth, runs in flight, the last tick, every cap with its live runs, paused agents', async () => {
    const type = await templateWithRoute(app, { agent: 'writer' });
    await app.db.query('UPDATE workflow_agent_routing SET max_concurrent = 1 WHERE workflow_type = $1', [type]);
    await app.db.query(
      `INSERT INTO agent_dispatch_controls (agent_id, max_concurrent_runs, dispatch_paused_until, pause_reason) VALUES ('writer', 3, NULL, NULL), ('tired', NULL, $1, 'quota exhausted')`,
      [new Date(clock.now().getTime() + 3_600_000)],
    );
    await createRun(app, type);
    await createRun(app, type);
    expect((await view()).dispatcher).toMatchObject({ queue_depth: 2, in_flight: 0, last_tick: null });
    await tick(app);
    const d = (await view()).dispatcher;
    expect(d).toMatchObject({ queue_depth: 1, in_flight: 1, max_in_flight: null });
    expect(d.last_tick).toMatchObject({
      dispatched: 1,
      capped: { workflowType: 1, agent: 0, fleet: 0 },
      held_by_budget: 0,
      held_by_pause: 0,
    });
    expect(d.caps).toEqual([
      { cap: 'agent', name: 'writer', limit: 3, live: 1 },
      { cap: 'workflowType', name: type, limit: 1, live: 1 },
    ]);
    expect(d.paused_agents).toEqual([{ agent_id: 'tired', until: expect.any(String), reason: 'quota exhausted' }]);
    expect((await view()).workflow_types).toContain(type);
    expect((await view()).statuses).toContain('waiting_for_approval');
  });

  it('refuses bad filters with 400 naming them, and drops unknown keys', async () => {
    for (const [query, field] of [
      ['?task_id=nope', 'task_id'],
      ['?limit=0', 'limit'],
      ['?limit=abc', 'limit'],
      ['?agent=', 'agent'],
    ] as const) {
      const res = await app.call('GET', `/api/views/runs${query}`);
      expect(res.status, query).toBe(400);
      expect(JSON.stringify(res.body), query).toContain(field);
    }
    const res = await app.http('GET', '/api/views/runs?colour=blue');
    expect(res.status).toBe(200);
    expect(res.headers['x-ignored-params']).toBe('colour');
  });
});
