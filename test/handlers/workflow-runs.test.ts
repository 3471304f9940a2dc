import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditActions, claimedRun, createRun, runStatus, templateWithRoute, tick, uniqueName, useWorkflowApp } from './workflow-support';

const app = useWorkflowApp();
let type: string;
beforeAll(async () => {
  type = await templateWithRoute(app);
});

async function newTask() {
  const { rows: projects } = await app.db.query<{ id: string }>(
    `INSERT INTO projects (id, name) VALUES (gen_random_uuid(), $1) RETURNING id`,
    [uniqueName('p')],
  );
  const { rows } = await app.db.query<{ id: string }>(
    `INSERT INTO tasks (id, project_id, title) VALUES (gen_random_uuid(), $1, 'a task') RETURNING id`,
    [projects[0]!.id],
  );
  return rows[0]!.id;
}

describe('creating runs', () => {
  it('queues a run with dense step rows from its template and returns the run detail', async () => {
    const steps = ['a', { name: 'b', required: true }, 'c', 'd'];
    const name = await templateWithRoute(app, { steps });
    const res = await app.call('POST', '/api/workflow-runs', { body: { workflow_type: name, input_payload: { topic: 'x' } } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      workflow_type: name,
      status: 'queued',
      current_step: 0,
      input_payload: { topic: 'x' },
      dispatch_attempts: 0,
      gateway_session_id: null,
    });
    expect(res.body.template_steps).toEqual(steps);
    expect(
      res.body.steps.map((s: { step_order: number; step_name: string; status: string }) => [s.step_order, s.step_name, s.status]),
    ).toEqual([
      [0, 'a', 'pending'],
      [1, 'b', 'pending'],
      [2, 'c', 'pending'],
      [3, 'd', 'pending'],
    ]);
    expect(res.body.artifacts).toEqual([]);
    expect(res.body.approvals).toEqual([]);
    const audit = await auditActions(app, res.body.id);
    expect(audit).toEqual([{ action: 'created', actor: 'dashboard-operator' }]);
    const events = await app.db.query(`SELECT payload FROM event_outbox WHERE name = 'run-updated' AND payload->>'runId' = $1`, [
      res.body.id,
    ]);
    expect(events.rows).toHaveLength(1);
  });

  it('refuses an unknown template (400), an inactive one (409), an unknown task (400) and unknown fields (400)', async () => {
    expect((await app.call('POST', '/api/workflow-runs', { body: { workflow_type: 'no-such-template' } })).status).toBe(400);
    const inactive = await templateWithRoute(app);
    await app.call('PATCH', `/api/workflow-templates/${inactive}`, { body: { is_active: false } });
    expect((await app.call('POST', '/api/workflow-runs', { body: { workflow_type: inactive } })).status).toBe(409);
    const badTask = await app.call('POST', '/api/workflow-runs', {
      body: { workflow_type: type, task_id: '00000000-0000-4000-8000-000000000000' },
    });
    expect(badTask.status).toBe(400);
    expect(badTask.body.error).toMatch(/task_id/);
    expect((await app.call('POST', '/api/workflow-runs', { body: { workflow_type: type, colour: 1 } })).status).toBe(400);
    expect((await app.call('POST', '/api/workflow-runs')).status).toBe(400);
  });

  it('points the task at its live run and clears the pointer when the run ends', async () => {
    const taskId = await newTask();
    const run = await createRun(app, type, { task_id: taskId });
    const pointer = async () =>
      (await app.db.query<{ active_workflow_run_id: string | null }>('SELECT active_workflow_run_id FROM tasks WHERE id = $1', [taskId]))
        .rows[0]!.active_workflow_run_id;
    expect(await pointer()).toBe(run.id);
    await app.call('POST', `/api/workflow-runs/${run.id}/cancel`, { body: {} });
    expect(await pointer()).toBeNull();
    await app.call('POST', `/api/workflow-runs/${run.id}/override-failure`, { body: { next_status: 'queued' } });
    expect(await pointer()).toBe(run.id);
  });
});

describe('claim, start, heartbeat, complete (the agent side)', () => {
  it('claims a dispatched run, tying it to the session key', async () => {
    const run = await createRun(app, type);
    await tick(app);
    const res = await app.call('POST', `/api/workflow-runs/${run.id}/claim`, {
      body: { agent_id: 'writer', session_id: 'agent:writer:main:1' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      claimed: true,
      already: false,
      run: {
        status: 'claimed',
        claim_session_id: 'agent:writer:main:1',
        gateway_session_id: 'agent:writer:main:1',
        gateway_session_active: true,
        owner_agent_id: 'writer',
      },
    });
    const again = await app.call('POST', `/api/workflow-runs/${run.id}/claim`, {
      body: { agent_id: 'writer', session_id: 'agent:writer:main:1' },
    });
    expect(again.body).toMatchObject({ claimed: true, already: true });
    const other = await app.call('POST', `/api/workflow-runs/${run.id}/claim`, {
      body: { agent_id: 'other', session_id: 'agent:other:main:2' },
    });
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ code: 'conflict', reason: 'already_claimed', status: 'claimed' });
    expect(other.body.error).toMatch(/by session agent:writer:main:1/);
    // The retry and the refusal are answered from a read: neither leaves a second claim behind.
    expect((await auditActions(app, run.id)).filter((a) => a.action === 'claimed')).toHaveLength(1);
  });

  it('refuses to claim a run that is not dispatched (queued or terminal) with 409', async () => {
    const run = await createRun(app, uniqueName('unrouted').slice(0, 0) || type);
    const queued = await app.call('POST', `/api/workflow-runs/${run.id}/claim`, { body: { agent_id: 'w', session_id: 's' } });
    expect(queued.status).toBe(409);
    expect(queued.body.error).toMatch(/queued/);
    expect(
      (
        await app.call('POST', `/api/workflow-runs/00000000-0000-4000-8000-000000000000/claim`, {
          body: { agent_id: 'w', session_id: 's' },
        })
      ).status,
    ).toBe(404);
    expect((await app.call('POST', `/api/workflow-runs/${run.id}/claim`, { body: { agent_id: 'w' } })).status).toBe(400);
  });

  it('lets exactly one of many concurrent claimers win', async () => {
    const run = await createRun(app, type);
    await tick(app);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        app.call('POST', `/api/workflow-runs/${run.id}/claim`, { body: { agent_id: `a${i}`, session_id: `agent:a${i}:main:x` } }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(11);
    expect((await auditActions(app, run.id)).filter((a) => a.action === 'claimed')).toHaveLength(1);
  });

  it('moves claimed to running on start and running to completed with the output summary, only from the claiming session', async () => {
    const { id, session } = await claimedRun(app, type);
    expect((await app.call('POST', `/api/workflow-runs/${id}/start`, { body: { session_id: 'agent:intruder:main:1' } })).status).toBe(409);
    const started = await app.call('POST', `/api/workflow-runs/${id}/start`, { body: { session_id: session } });
    expect(started.status).toBe(200);
    expect(started.body.status).toBe('running');
    expect(started.body.started_at).not.toBeNull();
    const hb = await app.call('POST', `/api/workflow-runs/${id}/heartbeat`, { body: { session_id: session } });
    expect(hb.body).toMatchObject({ ok: true, status: 'running' });
    const wrong = await app.call('POST', `/api/workflow-runs/${id}/complete`, {
      body: { session_id: 'agent:intruder:main:1', output_summary: {} },
    });
    expect(wrong.status).toBe(409);
    expect(wrong.body.error).toMatch(/does not hold/);
    expect(wrong.body.reason).toBe('session_mismatch');
    const done = await app.call('POST', `/api/workflow-runs/${id}/complete`, {
      body: { session_id: session, output_summary: { words: 900 } },
    });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'completed', output_summary: { words: 900 }, gateway_session_active: false });
    expect(done.body.finished_at).not.toBeNull();
  });

  it('completes a claimed run directly (claimed -> completed)', async () => {
    const { id, session } = await claimedRun(app, type);
    const done = await app.call('POST', `/api/workflow-runs/${id}/complete`, {
      body: { session_id: session, output_summary: { ok: true } },
    });
    expect(done.body.status).toBe('completed');
  });

  it('accepts heartbeats and completion from the child session registered with PATCH, and refuses heartbeats with a mismatched session', async () => {
    const { id, session } = await claimedRun(app, type);
    const child = 'agent:writer:subagent:child-1';
    const patched = await app.call('PATCH', `/api/workflow-runs/${id}`, {
      body: { gateway_session_id: child, gateway_session_active: true },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ gateway_session_id: child, claim_session_id: session });
    expect((await app.call('POST', `/api/workflow-runs/${id}/heartbeat`, { body: { session_id: child } })).status).toBe(200);
    expect((await app.call('POST', `/api/workflow-runs/${id}/heartbeat`, { body: { session_id: 'agent:x:y:z' } })).status).toBe(409);
    expect((await app.call('POST', `/api/workflow-runs/${id}/complete`, { body: { session_id: child, output_summary: {} } })).status).toBe(
      200,
    );
  });

  it('ends a run as failed with last_error on fail, and refuses a heartbeat on a finished run', async () => {
    const { id, session } = await claimedRun(app, type);
    await app.call('POST', `/api/workflow-runs/${id}/start`, { body: { session_id: session } });
    const failed = await app.call('POST', `/api/workflow-runs/${id}/fail`, { body: { session_id: session, error: 'API quota exhausted' } });
    expect(failed.body).toMatchObject({ status: 'failed', last_error: 'API quota exhausted' });
    const detail = await app.call('GET', `/api/workflow-runs/${id}`);
    expect(detail.body.steps[0]).toMatchObject({ status: 'failed', error_message: 'API quota exhausted' });
    expect((await app.call('POST', `/api/workflow-runs/${id}/heartbeat`, { body: { session_id: session } })).status).toBe(409);
    expect((await app.call('POST', `/api/workflow-runs/${id}/fail`, { body: { session_id: session } })).status).toBe(400);
  });

  it('reports steps: status, output and error, with current_step following the reports', async () => {
    const { id, session } = await claimedRun(app, type);
    await app.call('POST', `/api/workflow-runs/${id}/start`, { body: { session_id: session } });
    const first = await app.call('PATCH', `/api/workflow-runs/${id}/steps/0`, {
      body: { session_id: session, status: 'completed', output: { draft: 'ok' } },
    });
    expect(first.status).toBe(200);
    expect(first.body.step).toMatchObject({ step_order: 0, status: 'completed', output: { draft: 'ok' } });
    expect(first.body.run.current_step).toBe(1);
    const second = await app.call('PATCH', `/api/workflow-runs/${id}/steps/1`, {
      body: { session_id: session, status: 'needs-human-eyes' },
    });
    expect(second.body.step.status).toBe('needs-human-eyes');
    expect(second.body.run.current_step).toBe(1);
    const last = await app.call('PATCH', `/api/workflow-runs/${id}/steps/2`, { body: { session_id: session, status: 'completed' } });
    expect(last.body.run.current_step).toBe(2);
    expect(
      (await app.call('PATCH', `/api/workflow-runs/${id}/steps/3`, { body: { session_id: session, status: 'completed' } })).status,
    ).toBe(404);
    expect(
      (await app.call('PATCH', `/api/workflow-runs/${id}/steps/-1`, { body: { session_id: session, status: 'completed' } })).status,
    ).toBe(400);
    expect(
      (await app.call('PATCH', `/api/workflow-runs/${id}/steps/0`, { body: { session_id: 'agent:x:y:z', status: 'completed' } })).status,
    ).toBe(409);
    expect((await app.call('PATCH', `/api/workflow-runs/${id}/steps/0`, { body: { session_id: session } })).status).toBe(400);
  });

  it('stores usage from PATCH and complete, refusing negative or fractional tokens and cached above input', async () => {
    const { id, session } = await claimedRun(app, type);
    const ok = await app.call('PATCH', `/api/workflow-runs/${id}`, {
      body: { input_tokens: 1000, output_tokens: 200, cached_tokens: 400, model_id: 'model-a' },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ input_tokens: 1000, output_tokens: 200, cached_tokens: 400, model_id: 'model-a', cost_estimate: null });
    expect(ok.body.reported_at).toBe('2026-11-01T12:00:00.000Z');
    for (const body of [
      { input_tokens: -1 },
      { output_tokens: 1.5 },
      { cached_tokens: 1001 },
      { input_tokens: 10, cached_tokens: 11 },
      { cost_estimate: -2 },
      { currency: 'dollars' },
    ]) {
      const res = await app.call('PATCH', `/api/workflow-runs/${id}`, { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const done = await app.call('POST', `/api/workflow-runs/${id}/complete`, {
      body: { session_id: session, output_summary: {}, cost_estimate: 0.42, currency: 'usd' },
    });
    expect(done.body).toMatchObject({ cost_estimate: 0.42, currency: 'USD', input_tokens: 1000 });
  });

  it('refuses a session key on PATCH unless a session holds the run', async () => {
    const run = await createRun(app, type);
    expect((await app.call('PATCH', `/api/workflow-runs/${run.id}`, { body: { gateway_session_id: 'agent:a:b:c' } })).status).toBe(409);
    expect((await app.call('PATCH', `/api/workflow-runs/${run.id}`, { body: {} })).status).toBe(400);
  });
});

describe('operator operations and the transitions table', () => {
  it('cancels runs from queued, dispatched, claimed and running', async () => {
    const queued = await createRun(app, type);
    const dispatched = await createRun(app, type);
    await tick(app);
    const claimed = await claimedRun(app, type);
    const running = await claimedRun(app, type);
    await app.call('POST', `/api/workflow-runs/${running.id}/start`, { body: { session_id: running.session } });
    for (const id of [queued.id, dispatched.id, claimed.id, running.id]) {
      const res = await app.call('POST', `/api/workflow-runs/${id}/cancel`, { body: { reason: 'no longer needed' } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'cancelled', last_error: 'cancelled by dashboard-operator: no longer needed' });
    }
  });

  it('refuses to reopen a terminal run through cancel, claim, start or complete (409)', async () => {
    const { id, session } = await claimedRun(app, type);
    await app.call('POST', `/api/workflow-runs/${id}/complete`, { body: { session_id: session, output_summary: {} } });
    expect((await app.call('POST', `/api/workflow-runs/${id}/cancel`, { body: {} })).status).toBe(409);
    expect((await app.call('POST', `/api/workflow-runs/${id}/claim`, { body: { agent_id: 'w', session_id: session } })).status).toBe(409);
    expect((await app.call('POST', `/api/workflow-runs/${id}/start`, { body: { session_id: session } })).status).toBe(409);
    expect((await app.call('POST', `/api/workflow-runs/${id}/complete`, { body: { session_id: session } })).status).toBe(409);
    expect((await app.call('POST', `/api/workflow-runs/${id}/override-failure`, { body: { next_status: 'queued' } })).status).toBe(409);
  });

  it('redispatches a failed run with override-failure next_status queued: error cleared, sessions moved to history', async () => {
    const { id, session } = await claimedRun(app, type);
    const child = 'agent:writer:subagent:child-9';
    await app.call('PATCH', `/api/workflow-runs/${id}`, { body: { gateway_session_id: child } });
    await app.call('POST', `/api/workflow-runs/${id}/fail`, { body: { session_id: session, error: 'boom' } });
    const res = await app.call('POST', `/api/workflow-runs/${id}/override-failure`, {
      body: { next_status: 'queued', reason: 'fixed the key' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'queued',
      last_error: null,
      gateway_session_id: null,
      claim_session_id: null,
      gateway_session_active: false,
      dispatch_attempts: 0,
      retry_count: 1,
      finished_at: null,
      session_history: [child, session],
    });
    expect((await app.call('POST', `/api/workflow-runs/${id}/override-failure`, { body: { next_status: 'running' } })).status).toBe(400);
  });

  it('marks a failed run completed with override-failure next_status completed', async () => {
    const { id, session } = await claimedRun(app, type);
    await app.call('POST', `/api/workflow-runs/${id}/fail`, { body: { session_id: session, error: 'flaky' } });
    const res = await app.call('POST', `/api/workflow-runs/${id}/override-failure`, { body: { next_status: 'completed' } });
    expect(res.body.status).toBe('completed');
    expect(res.body.metadata.last_override).toMatchObject({ by: 'dashboard-operator', from: 'failed', error: 'flaky' });
  });

  it('pauses and resumes: a claimed run returns to claimed, a queued run to the queue', async () => {
    const { id } = await claimedRun(app, type);
    const paused = await app.call('POST', `/api/workflow-runs/${id}/pause`, { body: { reason: 'maintenance' } });
    expect(paused.body).toMatchObject({ status: 'paused', metadata: { paused_from: 'claimed' } });
    expect((await app.call('POST', `/api/workflow-runs/${id}/pause`, { body: {} })).status).toBe(409);
    const resumed = await app.call('POST', `/api/workflow-runs/${id}/resume`, { body: {} });
    expect(resumed.body.status).toBe('claimed');
    expect(resumed.body.metadata).not.toHaveProperty('paused_from');
    const queued = await createRun(app, type);
    await app.call('POST', `/api/workflow-runs/${queued.id}/pause`, { body: {} });
    expect((await app.call('POST', `/api/workflow-runs/${queued.id}/resume`, { body: {} })).body.status).toBe('queued');
    expect((await app.call('POST', `/api/workflow-runs/${queued.id}/resume`, { body: {} })).status).toBe(409);
  });

  it('reassigns a claimed run back to the queue for the new agent, and escalates without changing status', async () => {
    const { id, session } = await claimedRun(app, type);
    const res = await app.call('POST', `/api/workflow-runs/${id}/reassign`, { body: { agent_id: 'editor' } });
    expect(res.body).toMatchObject({
      status: 'queued',
      owner_agent_id: 'editor',
      target_agent_id: 'editor',
      gateway_session_id: null,
      session_history: [session],
    });
    await tick(app);
    expect((await runStatus(app, id)).target_agent_id).toBe('editor');
    const escalated = await app.call('POST', `/api/workflow-runs/${id}/escalate`, { body: { escalated_to: 'ops-lead', reason: 'stuck' } });
    expect(escalated.body).toMatchObject({ status: 'dispatched', metadata: { escalated_to: 'ops-lead' } });
    expect((await auditActions(app, id)).map((a) => a.action)).toContain('escalated');
  });

  it('shows status strings outside the known set verbatim in lists and detail', async () => {
    const run = await createRun(app, type);
    await app.db.query(`UPDATE workflow_runs SET status = 'quarantined' WHERE id = $1`, [run.id]);
    expect((await app.call('GET', `/api/workflow-runs/${run.id}`)).body.status).toBe('quarantined');
    const listed = await app.call('GET', '/api/workflow-runs?status=quarantined');
    expect(listed.body.runs.map((r: { id: string }) => r.id)).toEqual([run.id]);
    expect((await app.call('POST', `/api/workflow-runs/${run.id}/cancel`, { body: {} })).status).toBe(409);
  });
});

describe('governance on run operations', () => {
  it('refuses an actor without the capability with 403 naming what is missing, for each actor class', async () => {
    await app.db.query(
      `INSERT INTO agent_profiles (agent_id, role, capabilities) VALUES ('writer-bot', 'specialist', '{drafting}'), ('qa-bot', 'specialist', '{quality}') ON CONFLICT DO NOTHING`,
    );
    const run = await createRun(app, type);
    const stranger = await app.call('POST', `/api/workflow-runs/${run.id}/cancel`, { body: { actor: 'stranger' } });
    expect(stranger.status).toBe(403);
    expect(stranger.body).toMatchObject({ error: 'rejected_governance', governance: { allowed: false, actor: { role: 'external' } } });
    expect(stranger.body.reason).toMatch(/orchestration or management/);
    const profile = await app.call('POST', `/api/workflow-runs/${run.id}/cancel`, { body: { actor: 'writer-bot' } });
    expect(profile.status).toBe(403);
    expect(profile.body.governance.actor).toMatchObject({ role: 'specialist', source: 'agent_profile' });
    expect((await app.call('POST', '/api/workflow-runs', { body: { workflow_type: type, actor: 'writer-bot' } })).status).toBe(201);
    expect((await app.call('POST', '/api/workflow-runs', { body: { workflow_type: type, actor: 'qa-bot' } })).status).toBe(201);
    expect((await app.call('POST', '/api/workflow-runs', { body: { workflow_type: type, actor: 'stranger' } })).status).toBe(403);
    const pattern = await app.call('POST', `/api/workflow-runs/${run.id}/pause`, { body: { actor: 'night-controller' } });
    expect(pattern.status).toBe(200);
    const privileged = await app.call('POST', `/api/workflow-runs/${run.id}/cancel`, { body: { actor: 'system' } });
    expect(privileged.status).toBe(200);
    expect((await auditActions(app, run.id)).at(-1)).toEqual({ action: 'status_changed', actor: 'system' });
  });
});

describe('run lists', () => {
  it('lists pending (dispatched) runs with the default limit of 5, active runs, and filters by task and type', async () => {
    const name = await templateWithRoute(app, { agent: 'lister' });
    const ids = [];
    for (let i = 0; i < 7; i++) ids.push((await createRun(app, name)).id);
    await tick(app);
    const pending = await app.call('GET', '/api/workflow-runs/pending?agent_id=lister');
    expect(pending.body.runs).toHaveLength(5);
    // total counts every match, not the page
    expect(pending.body).toMatchObject({ total: 7, truncated: true });
    expect(pending.body.runs.every((r: { status: string }) => r.status === 'dispatched')).toBe(true);
    expect((await app.call('GET', '/api/workflow-runs/pending?limit=0')).status).toBe(400);
    const byType = await app.call('GET', `/api/workflow-runs?workflow_type=${name}&limit=3`);
    expect(byType.body.runs).toHaveLength(3);
    expect(byType.body).toMatchObject({ total: 7, truncated: true });
    const allOfType = await app.call('GET', `/api/workflow-runs?workflow_type=${name}`);
    expect(allOfType.body).toMatchObject({ total: 7, truncated: false });
    const active = await app.call('GET', '/api/workflow-runs/active');
    expect(ids.every((id) => active.body.runs.some((r: { id: string }) => r.id === id))).toBe(true);
    expect(active.body.total).toBe(active.body.runs.length);
    expect(active.body.truncated).toBe(false);
    expect((await app.call('GET', '/api/workflow-runs?task_id=nope')).status).toBe(400);
    expect((await app.call('GET', '/api/workflow-runs/not-a-uuid')).status).toBe(400);
  });

  it('never answers random bodies at the mutating run endpoints with a 5xx', async () => {
    const { id } = await claimedRun(app, type);
    const paths = [
      'claim',
      'heartbeat',
      'start',
      'complete',
      'fail',
      'cancel',
      'override-failure',
      'pause',
      'resume',
      'reassign',
      'escalate',
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), fc.anything(), async (path, body) => {
        const res = await app.call('POST', `/api/workflow-runs/${id}/${path}`, { body });
        expect(res.status).toBeLessThan(500);
        const patch = await app.call('PATCH', `/api/workflow-runs/${id}`, { body });
        expect(patch.status).toBeLessThan(500);
        const created = await app.call('POST', '/api/workflow-runs', { body });
        expect(created.status).toBeLessThan(500);
      }),
      { numRuns: 40 },
    );
  });
});
