import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { actionKindNames } from '../../core/actions/catalog';
import { fileSnapshotStore } from '../../infra/snapshots/file-store';
import { movableClock } from '../support/fakes';
import { useTestApp } from '../support/use-app';

const app = useTestApp();
let projectId: string;

async function newTask(owner: string | null = 'alice'): Promise<string> {
  const { rows } = await app.db.query<{ id: string }>(
    `INSERT INTO tasks (id, project_id, title, owner) VALUES (gen_random_uuid(), $1, 'governed', $2) RETURNING id`,
    [projectId, owner],
  );
  return rows[0]!.id;
}

async function newRun(status: string, extra: { agent?: string; taskId?: string } = {}): Promise<string> {
  const { rows } = await app.db.query<{ id: string }>(
    `INSERT INTO workflow_runs (id, workflow_type, status, owner_agent_id, task_id, last_error) VALUES (gen_random_uuid(), 'review', $1, $2, $3, 'boom') RETURNING id`,
    [status, extra.agent ?? null, extra.taskId ?? null],
  );
  return rows[0]!.id;
}

function execute(body: Record<string, unknown>) {
  return app.call('POST', '/api/actions/execute', { body });
}

async function count(sql: string, params: unknown[] = []): Promise<number> {
  const { rows } = await app.db.query<{ n: number }>(sql, params);
  return rows[0]!.n;
}

const receiptsOf = (actionId: string) => count('SELECT count(*)::int AS n FROM action_receipts WHERE action_id = $1', [actionId]);
const mirrorsOf = (actionId: string) =>
  count(`SELECT count(*)::int AS n FROM audit_log WHERE entity_type = 'action_receipt' AND entity_id = $1`, [actionId]);

beforeAll(async () => {
  app.ctx.deps.clock = movableClock('2026-11-20T12:00:00Z');
  const project = await app.call('POST', '/api/projects', { body: { name: 'Governed' } });
  projectId = project.body.id;
  await app.db.query(`INSERT INTO workflow_templates (name, steps) VALUES ('review', '["read","write"]')`);
  await app.db.query(`INSERT INTO workflow_agent_routing (workflow_type, agent_id) VALUES ('review', 'reviewer')`);
});

describe('envelope validation', () => {
  it('refuses an unknown kind, a bad target format and a params violation with 400 invalid_action and details, writing nothing', async () => {
    const actionId = randomUUID();
    const unknownKind = await execute({ actionId, kind: 'task.delete', targetId: 'x', params: {} });
    expect(unknownKind.status).toBe(400);
    expect(unknownKind.body.error).toBe('invalid_action');
    expect(unknownKind.body.details[0].path).toBe('kind');
    const badTarget = await execute({ actionId, kind: 'task.assign', targetId: 'not-a-uuid', params: { owner: 'bob' } });
    expect(badTarget.status).toBe(400);
    expect(badTarget.body).toEqual({
      error: 'invalid_action',
      details: [{ path: 'targetId', message: 'must be the task id (UUID) for task.assign' }],
    });
    const badParams = await execute({ actionId, kind: 'task.assign', targetId: await newTask(), params: { owner: '', extra: 1 } });
    expect(badParams.status).toBe(400);
    expect(badParams.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['params', 'params.owner']);
    const noActionId = await execute({ kind: 'run.redispatch', targetId: randomUUID() });
    expect(noActionId.body.details[0].path).toBe('actionId');
    const redispatchParams = await execute({
      actionId,
      kind: 'run.redispatch',
      targetId: randomUUID(),
      params: { next_status: 'completed' },
    });
    expect(redispatchParams.status).toBe(400);
    const snapshotTarget = await execute({ actionId, kind: 'snapshot.create', targetId: 'mine', params: { name: 'x'.repeat(121) } });
    expect(snapshotTarget.body.details.map((d: { path: string }) => d.path)).toEqual(['targetId', 'params.name']);
    expect(await receiptsOf(actionId)).toBe(0);
  });

  it('never answers a random envelope with a 5xx', async () => {
    const taskId = await newTask();
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            actionId: fc.oneof(fc.uuid(), fc.string()),
            kind: fc.constantFrom(...actionKindNames, 'nope'),
            targetId: fc.oneof(fc.constant(taskId), fc.uuid(), fc.string(), fc.constant('fleet')),
            params: fc.oneof(
              fc.dictionary(fc.constantFrom('owner', 'title', 'patch', 'template', 'decision', 'name', 'reason'), fc.anything()),
              fc.anything(),
            ),
            actor: fc.oneof(fc.constant('dashboard-operator'), fc.string()),
            confirm: fc.anything(),
          },
          { requiredKeys: [] },
        ),
        async (body) => {
          const res = await execute(body);
          expect(res.status).toBeLessThan(500);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('executing and replaying', () => {
  it('executes task.assign: receipt executed with rollback hint, side effect, one audit mirror and action-update events', async () => {
    const taskId = await newTask('alice');
    const actionId = randomUUID();
    const outboxBefore = await count(`SELECT count(*)::int AS n FROM event_outbox WHERE name = 'action-update'`);
    const res = await execute({ actionId, kind: 'task.assign', targetId: taskId, params: { owner: 'bob' }, confirm: { mode: 'NONE' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      receipt: expect.objectContaining({
        action_id: actionId,
        kind: 'task.assign',
        target_id: taskId,
        actor: 'dashboard-operator',
        outcome: 'executed',
      }),
    });
    expect(res.body.receipt.params_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(res.body.receipt.rollback_hint).toBe(`Re-assign task ${taskId} to its previous owner (alice).`);
    expect(res.body.receipt.detail).toMatchObject({
      governance: { allowed: true, action: 'reassign_owner' },
      result: { owner: 'bob', previous_owner: 'alice' },
      confirm: { mode: 'NONE' },
    });
    expect((await app.db.query('SELECT owner FROM tasks WHERE id = $1', [taskId])).rows[0]).toEqual({ owner: 'bob' });
    const mirror = await app.db.query<{ action: string; actor: string }>(
      `SELECT action, actor FROM audit_log WHERE entity_type = 'action_receipt' AND entity_id = $1`,
      [actionId],
    );
    expect(mirror.rows).toEqual([{ action: 'action.task.assign', actor: 'dashboard-operator' }]);
    const events = await app.db.query<{ payload: { outcome: string | null } }>(
      `SELECT payload FROM event_outbox WHERE name = 'action-update' AND channel = 'stream' AND payload->>'action_id' = $1 ORDER BY id`,
      [actionId],
    );
    expect(events.rows.map((r) => r.payload.outcome)).toEqual([null, 'executed']);
    expect(await count(`SELECT count(*)::int AS n FROM event_outbox WHERE name = 'action-update'`)).toBe(outboxBefore + 2);
  });

  it('replays the same actionId and params as duplicate: true, running nothing', async () => {
    const taskId = await newTask('alice');
    const actionId = randomUUID();
    const envelope = { actionId, kind: 'task.assign', targetId: taskId, params: { owner: 'carol' } };
    const first = await execute(envelope);
    await app.db.query(`UPDATE tasks SET owner = 'dave' WHERE id = $1`, [taskId]);
    // same params with keys in another order hash the same
    const again = await execute({ params: { owner: 'carol' }, targetId: taskId, kind: 'task.assign', actionId });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ receipt: first.body.receipt, duplicate: true });
    expect((await app.db.query('SELECT owner FROM tasks WHERE id = $1', [taskId])).rows[0]).toEqual({ owner: 'dave' });
    expect(await mirrorsOf(actionId)).toBe(1);
  });

  it('answers the same actionId with different params 409 {error: stale_retry}, changing nothing', async () => {
    const taskId = await newTask('alice');
    const actionId = randomUUID();
    await execute({ actionId, kind: 'task.assign', targetId: taskId, params: { owner: 'erin' } });
    const stale = await execute({ actionId, kind: 'task.assign', targetId: taskId, params: { owner: 'frank' } });
    expect(stale.status).toBe(409);
    expect(stale.body).toEqual({ error: 'stale_retry' });
    expect((await app.db.query('SELECT owner FROM tasks WHERE id = $1', [taskId])).rows[0]).toEqual({ owner: 'erin' });
  });

  it('executes two different actionIds with identical params, each with its own receipt', async () => {
    const taskId = await newTask('alice');
    const a = await execute({ actionId: randomUUID(), kind: 'task.assign', targetId: taskId, params: { owner: 'gina' } });
    const b = await execute({ actionId: randomUUID(), kind: 'task.assign', targetId: taskId, params: { owner: 'gina' } });
    expect([a.status, b.status, a.body.receipt.outcome, b.body.receipt.outcome]).toEqual([200, 200, 'executed', 'executed']);
    expect(a.body.receipt.action_id).not.toBe(b.body.receipt.action_id);
    expect(b.body.receipt.rollback_hint).toMatch(/previous owner \(gina\)/);
  });

  it('reports a receipt left with a null outcome (a crash) on replay and never re-runs it', async () => {
    const taskId = await newTask('alice');
    const actionId = randomUUID();
    const probe = await execute({ actionId: randomUUID(), kind: 'task.assign', targetId: taskId, params: { owner: 'zed' } });
    await app.db.query(
      `INSERT INTO action_receipts (action_id, kind, target_id, params_hash, actor, outcome, detail, created_at)
       VALUES ($1, 'task.assign', $2, $3, 'dashboard-operator', NULL, '{}', '2026-11-20T12:00:00Z')`,
      [actionId, taskId, probe.body.receipt.params_hash],
    );
    await app.db.query(`UPDATE tasks SET owner = 'alice' WHERE id = $1`, [taskId]);
    const replayed = await execute({ actionId, kind: 'task.assign', targetId: taskId, params: { owner: 'zed' } });
    expect(replayed.status).toBe(200);
    expect(replayed.body).toMatchObject({ duplicate: true, receipt: { action_id: actionId, outcome: null } });
    expect((await app.db.query('SELECT owner FROM tasks WHERE id = $1', [taskId])).rows[0]).toEqual({ owner: 'alice' });
  });

  it('runs the side effect once for 50 concurrent executes of one actionId: one receipt, 49 duplicates', async () => {
    const taskId = await newTask('alice');
    const actionId = randomUUID();
    const envelope = { actionId, kind: 'task.create', targetId: projectId, params: { title: `race ${actionId}` } };
    const results = await Promise.all(Array.from({ length: 50 }, () => execute(envelope)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(results.filter((r) => r.body.duplicate === true)).toHaveLength(49);
    expect(results.filter((r) => r.body.duplicate === undefined && r.body.receipt.outcome === 'executed')).toHaveLength(1);
    expect(await count('SELECT count(*)::int AS n FROM tasks WHERE title = $1', [`race ${actionId}`])).toBe(1);
    expect(await receiptsOf(actionId)).toBe(1);
    expect(await mirrorsOf(actionId)).toBe(1);
    expect(taskId).toBeTruthy();
  });
});

describe('failures and refusals', () => {
  it('answers a backing not-found with 404 execution_failed and a failed receipt carrying detail.error', async () => {
    const actionId = randomUUID();
    const res = await execute({ actionId, kind: 'task.assign', targetId: randomUUID(), params: { owner: 'bob' } });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('execution_failed');
    expect(res.body.message).toMatch(/not found/);
    expect(res.body.receipt).toMatchObject({
      action_id: actionId,
      outcome: 'failed',
      rollback_hint: null,
      detail: { error: res.body.message },
    });
    expect(await mirrorsOf(actionId)).toBe(1);
  });

  it('answers another backing failure with 400 execution_failed, leaving no half-written change', async () => {
    const taskId = await newTask('alice');
    const res = await execute({
      actionId: randomUUID(),
      kind: 'task.update',
      targetId: taskId,
      params: { patch: { owner: 'x', status: 'nonsense' } },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'execution_failed', receipt: { outcome: 'failed', kind: 'task.update' } });
    expect(res.body.receipt.detail.error).toMatch(/status/);
    expect((await app.db.query('SELECT owner FROM tasks WHERE id = $1', [taskId])).rows[0]).toEqual({ owner: 'alice' });
  });

  it('refuses an actor without the governance capability: 403 with a rejected_governance receipt and no side effect', async () => {
    const taskId = await newTask('alice');
    const actionId = randomUUID();
    const res = await execute({ actionId, kind: 'task.assign', targetId: taskId, params: { owner: 'mallory' }, actor: 'random-bot' });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('rejected_governance');
    expect(res.body.reason).toMatch(/random-bot.*reassign_owner/);
    expect(res.body.receipt).toMatchObject({ action_id: actionId, outcome: 'rejected_governance', actor: 'random-bot' });
    expect((await app.db.query('SELECT owner FROM tasks WHERE id = $1', [taskId])).rows[0]).toEqual({ owner: 'alice' });
    const mirror = await app.db.query(`SELECT action FROM audit_log WHERE entity_id = $1`, [actionId]);
    expect(mirror.rows).toEqual([{ action: 'action.task.assign' }]);
    // an agent whose stored profile holds the capability may
    await app.db.query(`INSERT INTO agent_profiles (agent_id, role, capabilities) VALUES ('planner', 'specialist', '{management}')`);
    const allowed = await execute({
      actionId: randomUUID(),
      kind: 'task.assign',
      targetId: taskId,
      params: { owner: 'planner' },
      actor: 'planner',
    });
    expect(allowed.status).toBe(200);
  });

  it('maps approval.decide to approve or reject by the decision', async () => {
    await app.db.query(`INSERT INTO agent_profiles (agent_id, role, capabilities) VALUES ('qa-bot', 'specialist', '{quality}')`);
    const approvalId = randomUUID();
    const refused = await execute({
      actionId: randomUUID(),
      kind: 'approval.decide',
      targetId: approvalId,
      params: { decision: 'rejected' },
      actor: 'random-bot',
    });
    expect(refused.status).toBe(403);
    expect(refused.body.receipt.detail.governance.action).toBe('reject');
  });

  it('decides a pending approval (approval.decide): the waiting run moves on, the receipt names the decision, a second decision fails with a receipt', async () => {
    const waiting = await newRun('waiting_for_approval');
    const { rows } = await app.db.query<{ id: string }>(
      `INSERT INTO workflow_approvals (id, workflow_run_id, step_name) VALUES (gen_random_uuid(), $1, 'write') RETURNING id`,
      [waiting],
    );
    const approvalId = rows[0]!.id;
    const actionId = randomUUID();
    const res = await execute({
      actionId,
      kind: 'approval.decide',
      targetId: approvalId,
      params: { decision: 'rejected', notes: 'unsafe diff' },
    });
    expect(res.status).toBe(200);
    expect(res.body.receipt).toMatchObject({
      action_id: actionId,
      outcome: 'executed',
      detail: {
        governance: { action: 'reject' },
        result: { approval_id: approvalId, decision: 'rejected', run_id: waiting, run_status: 'failed' },
      },
    });
    expect(res.body.receipt.rollback_hint).toContain(approvalId);
    const stored = await app.db.query('SELECT status, note, decided_by FROM workflow_approvals WHERE id = $1', [approvalId]);
    expect(stored.rows[0]).toEqual({ status: 'rejected', note: 'unsafe diff', decided_by: 'dashboard-operator' });
    const run = await app.db.query<{ status: string; last_error: string }>('SELECT status, last_error FROM workflow_runs WHERE id = $1', [
      waiting,
    ]);
    expect(run.rows[0]!.status).toBe('failed');
    expect(run.rows[0]!.last_error).toMatch(/write rejected by dashboard-operator: unsafe diff/);
    expect(await mirrorsOf(actionId)).toBe(1);

    const again = randomUUID();
    const second = await execute({ actionId: again, kind: 'approval.decide', targetId: approvalId, params: { decision: 'approved' } });
    expect(second.status).toBe(400);
    expect(second.body).toMatchObject({
      error: 'execution_failed',
      receipt: { action_id: again, outcome: 'failed', detail: { governance: { action: 'approve' } } },
    });
    expect(second.body.message).toMatch(/already rejected/);
    expect((await app.db.query('SELECT status FROM workflow_approvals WHERE id = $1', [approvalId])).rows[0]).toEqual({
      status: 'rejected',
    });
  });

  it('approves the last pending approval of a waiting run back to running; an unknown approval is 404 with a failed receipt', async () => {
    const waiting = await newRun('waiting_for_approval');
    const { rows } = await app.db.query<{ id: string }>(
      `INSERT INTO workflow_approvals (id, workflow_run_id, step_name) VALUES (gen_random_uuid(), $1, 'read') RETURNING id`,
      [waiting],
    );
    const ok = await execute({ actionId: randomUUID(), kind: 'approval.decide', targetId: rows[0]!.id, params: { decision: 'approved' } });
    expect(ok.status).toBe(200);
    expect(ok.body.receipt.detail.result).toMatchObject({ decision: 'approved', run_status: 'running' });
    expect((await app.db.query('SELECT status FROM workflow_runs WHERE id = $1', [waiting])).rows[0]).toEqual({ status: 'running' });

    const actionId = randomUUID();
    const missing = await execute({ actionId, kind: 'approval.decide', targetId: randomUUID(), params: { decision: 'approved' } });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: 'execution_failed', receipt: { action_id: actionId, outcome: 'failed' } });
    expect(await mirrorsOf(actionId)).toBe(1);
  });

  it('answers 503 receipts_unavailable when the receipts table cannot be used, executing nothing', async () => {
    const taskId = await newTask('alice');
    await app.db.query('ALTER TABLE action_receipts RENAME TO action_receipts_away');
    try {
      const res = await execute({ actionId: randomUUID(), kind: 'task.assign', targetId: taskId, params: { owner: 'bob' } });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ available: false, reason: 'receipts_unavailable' });
      const recent = await app.call('GET', '/api/actions/recent');
      expect(recent.body).toEqual({ available: false, reason: 'query_failed' });
    } finally {
      await app.db.query('ALTER TABLE action_receipts_away RENAME TO action_receipts');
    }
    expect((await app.db.query('SELECT owner FROM tasks WHERE id = $1', [taskId])).rows[0]).toEqual({ owner: 'alice' });
  });
});

describe('runs and budgets', () => {
  it('cancels a run (run.cancel) and redispatches a failed one (run.redispatch) through the run operations', async () => {
    const running = await newRun('running');
    const cancel = await execute({ actionId: randomUUID(), kind: 'run.cancel', targetId: running, params: { reason: 'stop' } });
    expect(cancel.status).toBe(200);
    expect(cancel.body.receipt).toMatchObject({ outcome: 'executed', rollback_hint: `Redispatch run ${running} (run.redispatch).` });
    expect((await app.db.query('SELECT status FROM workflow_runs WHERE id = $1', [running])).rows[0]).toEqual({ status: 'cancelled' });
    const failed = await newRun('failed');
    const redispatch = await execute({ actionId: randomUUID(), kind: 'run.redispatch', targetId: failed });
    expect(redispatch.status).toBe(200);
    expect((await app.db.query('SELECT status, last_error FROM workflow_runs WHERE id = $1', [failed])).rows[0]).toEqual({
      status: 'queued',
      last_error: null,
    });
    const notFailed = await execute({ actionId: randomUUID(), kind: 'run.redispatch', targetId: await newRun('completed') });
    expect(notFailed.status).toBe(400);
    expect(notFailed.body.receipt.outcome).toBe('failed');
  });

  it('dispatches a run for a task (run.dispatch) with result.new_run_id', async () => {
    const taskId = await newTask('alice');
    const res = await execute({
      actionId: randomUUID(),
      kind: 'run.dispatch',
      targetId: taskId,
      params: { template: 'review', input_payload: { a: 1 } },
    });
    expect(res.status).toBe(200);
    const runId = res.body.receipt.detail.result.new_run_id;
    expect(res.body.receipt.rollback_hint).toBe(`Cancel the new run ${runId}.`);
    expect((await app.db.query('SELECT status, task_id FROM workflow_runs WHERE id = $1', [runId])).rows[0]).toEqual({
      status: 'queued',
      task_id: taskId,
    });
  });

  it('blocks dispatch-class actions over a breached pause_new_runs or hard_stop budget with 422 and no receipt; warn passes', async () => {
    const taskId = await newTask('alice');
    await app.db.query(
      `INSERT INTO workflow_runs (id, workflow_type, status, owner_agent_id, cost_estimate, reported_at) VALUES (gen_random_uuid(), 'review', 'completed', 'reviewer', 5, '2026-11-20T01:00:00Z')`,
    );
    const warn = await app.call('POST', '/api/budgets', {
      body: { name: 'reviewer warn', scope: 'agent', scope_id: 'reviewer', period: 'daily', cap_usd: 5, action_on_exceed: 'warn' },
    });
    expect(warn.status).toBe(201);
    const passes = await execute({ actionId: randomUUID(), kind: 'run.dispatch', targetId: taskId, params: { template: 'review' } });
    expect(passes.status).toBe(200);

    const pause = await app.call('POST', '/api/budgets', {
      body: {
        name: 'project pause',
        scope: 'project',
        scope_id: projectId,
        period: 'monthly',
        cap_usd: 5,
        action_on_exceed: 'pause_new_runs',
      },
    });
    await app.db.query(`UPDATE workflow_runs SET task_id = $1 WHERE cost_estimate = 5`, [taskId]);
    const actionId = randomUUID();
    const held = await execute({ actionId, kind: 'run.dispatch', targetId: taskId, params: { template: 'review' } });
    expect(held.status).toBe(422);
    expect(held.body).toEqual({
      error: 'budget_blocked',
      action: 'pause_new_runs',
      budgets: [{ name: 'project pause', scope: 'project', period_key: '2026-11', spend_usd: 5, cap_usd: 5, pct_of_cap: 100 }],
    });
    expect(await receiptsOf(actionId)).toBe(0);

    await app.call('POST', '/api/budgets', {
      body: { name: 'fleet stop', scope: 'fleet', period: 'daily', cap_tokens: 1, action_on_exceed: 'hard_stop' },
    });
    await app.db.query(`UPDATE workflow_runs SET input_tokens = 10 WHERE cost_estimate = 5`);
    const failedRun = await newRun('failed');
    const stopped = await execute({ actionId, kind: 'run.redispatch', targetId: failedRun });
    expect(stopped.status).toBe(422);
    expect(stopped.body.action).toBe('hard_stop');
    expect(stopped.body.budgets).toEqual([
      { name: 'fleet stop', scope: 'fleet', period_key: '2026-11-20', spend_tokens: 10, cap_tokens: 1, pct_of_cap: 1000 },
    ]);
    expect(await receiptsOf(actionId)).toBe(0);
    // the action stays retryable: once the budget is deactivated the same actionId executes
    await app.call('PATCH', `/api/budgets/${pause.body.budget.id}`, { body: { active: false } });
    await app.db.query(`UPDATE budgets SET active = false WHERE name = 'fleet stop'`);
    const retried = await execute({ actionId, kind: 'run.redispatch', targetId: failedRun });
    expect(retried.status).toBe(200);
  });
});

describe('the headroom probe and reservations', () => {
  it("blocks run.dispatch when its route's expected cost does not fit beside spend and live runs' reservations, and lets it through once they shrink", async () => {
    await app.db.query(`INSERT INTO workflow_templates (name, steps) VALUES ('reserve-flow', '["a"]')`);
    await app.db.query(
      `INSERT INTO workflow_agent_routing (workflow_type, agent_id, expected_cost_usd) VALUES ('reserve-flow', 'reserve-agent', 0.4)`,
    );
    const cap = await app.call('POST', '/api/budgets', {
      body: {
        name: 'reserve cap',
        scope: 'agent',
        scope_id: 'reserve-agent',
        period: 'daily',
        cap_usd: 1,
        action_on_exceed: 'pause_new_runs',
      },
    });
    expect(cap.status).toBe(201);
    const { rows: live } = await app.db.query<{ id: string }>(
      `INSERT INTO workflow_runs (id, workflow_type, status, target_agent_id, dispatched_at) SELECT gen_random_uuid(), 'reserve-flow', 'dispatched', 'reserve-agent', now() FROM generate_series(1, 2) RETURNING id`,
    );
    const taskId = await newTask(null);
    const actionId = randomUUID();
    const blocked = await execute({ actionId, kind: 'run.dispatch', targetId: taskId, params: { template: 'reserve-flow' } });
    expect(blocked.status).toBe(422);
    expect(blocked.body).toMatchObject({
      error: 'budget_blocked',
      action: 'pause_new_runs',
      budgets: [{ name: 'reserve cap', spend_usd: 0, cap_usd: 1 }],
    });
    expect(await receiptsOf(actionId)).toBe(0);
    // one live run finishes at $0.10: 0.10 spent + 0.40 reserved + 0.40 expected fits under $1.00
    await app.db.query(
      `UPDATE workflow_runs SET status = 'completed', cost_estimate = 0.1, reported_at = '2026-11-20T11:00:00Z' WHERE id = $1`,
      [live[0]!.id],
    );
    const passes = await execute({ actionId, kind: 'run.dispatch', targetId: taskId, params: { template: 'reserve-flow' } });
    expect(passes.status, JSON.stringify(passes.body)).toBe(200);
    await app.db.query(`UPDATE budgets SET active = false WHERE name = 'reserve cap'`);
  });

  it('lets a dispatch to a subscription agent through a budget of basis billed that its expected USD would not fit', async () => {
    await app.db.query(`INSERT INTO workflow_templates (name, steps) VALUES ('plan-flow', '["a"]')`);
    await app.db.query(
      `INSERT INTO workflow_agent_routing (workflow_type, agent_id, expected_cost_usd) VALUES ('plan-flow', 'plan-agent', 0.6)`,
    );
    const cap = await app.call('POST', '/api/budgets', {
      body: { name: 'plan cap', scope: 'agent', scope_id: 'plan-agent', period: 'daily', cap_usd: 1, action_on_exceed: 'pause_new_runs' },
    });
    expect(cap.status).toBe(201);
    await app.db.query(
      `INSERT INTO workflow_runs (id, workflow_type, status, target_agent_id, dispatched_at) VALUES (gen_random_uuid(), 'plan-flow', 'dispatched', 'plan-agent', now())`,
    );
    const taskId = await newTask(null);
    // metered: 0.6 reserved + 0.6 expected does not fit under $1.00
    expect(
      (await execute({ actionId: randomUUID(), kind: 'run.dispatch', targetId: taskId, params: { template: 'plan-flow' } })).status,
    ).toBe(422);
    expect((await app.call('PUT', '/api/agents/plan-agent/billing', { body: { billing: 'subscription' } })).status).toBe(200);
    const passes = await execute({ actionId: randomUUID(), kind: 'run.dispatch', targetId: taskId, params: { template: 'plan-flow' } });
    expect(passes.status, JSON.stringify(passes.body)).toBe(200);
    await app.db.query(`UPDATE budgets SET active = false WHERE name = 'plan cap'`);
  });
});

describe('snapshot.create and task kinds for the tool server', () => {
  it('creates a task (task.create) and patches one (task.update) through the task operations', async () => {
    const created = await execute({
      actionId: randomUUID(),
      kind: 'task.create',
      targetId: projectId,
      params: { title: 'From MCP', owner_agent: 'writer', status: 'ready' },
    });
    expect(created.status).toBe(200);
    const newId = created.body.receipt.detail.result.new_task_id;
    expect((await app.db.query('SELECT title, owner, status, project_id FROM tasks WHERE id = $1', [newId])).rows[0]).toEqual({
      title: 'From MCP',
      owner: 'writer',
      status: 'ready',
      project_id: projectId,
    });
    const updated = await execute({
      actionId: randomUUID(),
      kind: 'task.update',
      targetId: newId,
      params: { patch: { title: 'Renamed', priority: 'high' } },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.receipt.rollback_hint).toBe(`Patch task ${newId} back to its previous values of title, priority.`);
    const missing = await execute({
      actionId: randomUUID(),
      kind: 'task.update',
      targetId: randomUUID(),
      params: { patch: { title: 'x' } },
    });
    expect(missing.status).toBe(404);
  });

  it('writes a snapshot (snapshot.create); a failure keeps the snapshot endpoint body under detail.snapshot_body', async () => {
    const ok = await execute({ actionId: randomUUID(), kind: 'snapshot.create', targetId: 'fleet', params: { name: 'governed-snap' } });
    expect(ok.status).toBe(200);
    expect(ok.body.receipt.detail.result).toMatchObject({ name: 'governed-snap' });
    const listed = await app.call('GET', '/api/snapshots');
    expect(listed.body.snapshots.map((s: { snapshot_id: string }) => s.snapshot_id)).toContain(ok.body.receipt.detail.result.snapshot_id);

    const realStore = app.ctx.deps.snapshots;
    app.ctx.deps.snapshots = fileSnapshotStore('/dev/null/snapshots');
    try {
      const endpoint = await app.call('POST', '/api/snapshots', { body: { name: 'nowhere' } });
      const failed = await execute({ actionId: randomUUID(), kind: 'snapshot.create', targetId: 'fleet', params: { name: 'nowhere' } });
      expect(failed.status).toBe(400);
      expect(failed.body.receipt.outcome).toBe('failed');
      const { requestId: _ignored, ...endpointBody } = endpoint.body;
      expect(failed.body.receipt.detail.snapshot_body).toEqual(endpointBody);
    } finally {
      app.ctx.deps.snapshots = realStore;
    }
  });
});

describe('GET /api/actions/recent and the catalog', () => {
  it('lists receipts newest first with the limit clamped to 1..200', async () => {
    const clock = app.ctx.deps.clock as ReturnType<typeof movableClock>;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      clock.advance(60_000);
      const res = await execute({ actionId: randomUUID(), kind: 'task.assign', targetId: await newTask(), params: { owner: `o${i}` } });
      ids.push(res.body.receipt.action_id);
    }
    const recent = await app.call('GET', '/api/actions/recent?limit=3');
    expect(recent.status).toBe(200);
    expect(recent.body.available).toBe(true);
    expect(recent.body.receipts.map((r: { action_id: string }) => r.action_id)).toEqual(ids.reverse());
    expect((await app.call('GET', '/api/actions/recent?limit=0')).body.receipts).toHaveLength(1);
    const total = await count('SELECT count(*)::int AS n FROM action_receipts');
    expect((await app.call('GET', '/api/actions/recent')).body.receipts).toHaveLength(Math.min(50, total));
    expect((await app.call('GET', '/api/actions/recent?limit=999')).body.receipts).toHaveLength(Math.min(200, total));
    expect((await app.call('GET', '/api/actions/recent?limit=lots')).status).toBe(400);
  });

  it('serves the catalog: kinds, params schema, severity, confirm mode and rollback hint template', async () => {
    const res = await app.http('GET', '/api/actions/catalog');
    expect(res.status).toBe(200);
    expect(res.body.hold_confirm_min_ms).toBe(1200);
    const byKind = Object.fromEntries(res.body.kinds.map((k: { kind: string }) => [k.kind, k]));
    expect(Object.keys(byKind).sort()).toEqual([...actionKindNames].sort());
    expect(byKind['task.assign']).toMatchObject({ severity: 'LOW', confirm: { mode: 'NONE' }, governance_action: 'reassign_owner' });
    expect(byKind['task.create']).toMatchObject({ severity: 'LOW', confirm: { mode: 'NONE' } });
    expect(byKind['run.dispatch']).toMatchObject({ severity: 'MEDIUM', confirm: { mode: 'PREVIEW_MODAL' }, dispatch_class: true });
    expect(byKind['run.redispatch']).toMatchObject({ severity: 'MEDIUM', confirm: { mode: 'PREVIEW_MODAL' }, dispatch_class: true });
    expect(byKind['approval.decide']).toMatchObject({ severity: 'MEDIUM-HIGH', confirm: { mode: 'PREVIEW_MODAL' } });
    expect(byKind['run.cancel']).toMatchObject({
      severity: 'HIGH',
      confirm: { mode: 'HOLD_CONFIRM', hold_ms: 1200, when_target_queued: 'PREVIEW_MODAL' },
    });
    expect(byKind['task.assign'].params_schema.required).toEqual(['owner']);
    expect(byKind['run.dispatch'].rollback_hint_template).toMatch(/Cancel the new run/);
  });
});
