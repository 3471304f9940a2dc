import { beforeEach, describe, expect, it } from 'vitest';
import { useTestApp } from '../support/use-app';
import { createRun, fakeRuntime, fakeTime, runStatus, templateWithRoute, tick } from './workflow-support';

const app = useTestApp();
let clock: ReturnType<typeof fakeTime>;

beforeEach(async () => {
  clock = fakeTime(app, '2026-11-20T12:00:00.000Z');
  fakeRuntime(app);
  await app.db.query('DELETE FROM budgets');
  await app.db.query('DELETE FROM workflow_runs');
});

async function spend(agent: string, usd: number, at = '2026-11-20T01:00:00Z') {
  await app.db.query(
    `INSERT INTO workflow_runs (id, workflow_type, status, owner_agent_id, cost_estimate, input_tokens, output_tokens, reported_at)
     VALUES (gen_random_uuid(), 'history', 'completed', $1, $2, 0, 0, $3)`,
    [agent, usd, at],
  );
}

async function budget(body: Record<string, unknown>) {
  const res = await app.call('POST', '/api/budgets', { body: { name: `b-${Math.random()}`, period: 'daily', ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.budget as { id: string };
}

describe('dispatcher budget enforcement (the real gate through the tick endpoint)', () => {
  it('holds a queued run under a breached pause_new_runs budget with no attempt counted, and lets it go after the period rollover', async () => {
    const type = await templateWithRoute(app, { agent: 'writer' });
    await spend('writer', 10);
    const paused = await budget({ scope: 'agent', scope_id: 'writer', cap_usd: 10, action_on_exceed: 'pause_new_runs' });
    const run = await createRun(app, type);
    const summary = await tick(app);
    expect(summary.budgetEnforcement).toMatchObject({ held: 1, stopped: 0, warned: 0 });
    expect(await runStatus(app, run.id)).toMatchObject({ status: 'queued', dispatch_attempts: 0 });
    const stats = await app.call('GET', '/api/workflow-runs/dispatcher/stats');
    expect(stats.body.last_tick_summary.budgetEnforcement).toMatchObject({ held: 1, stopped: 0, warned: 0 });
    const ledger = await app.call('GET', `/api/budgets/${paused.id}/ledger`);
    expect(ledger.body.events.map((e: { event_kind: string }) => e.event_kind)).toEqual(['paused']);

    clock.set('2026-11-21T00:00:01Z');
    const next = await tick(app);
    expect(next.budgetEnforcement).toMatchObject({ held: 0 });
    expect(await runStatus(app, run.id)).toMatchObject({ status: 'dispatched', dispatch_attempts: 1 });
    const recovered = await app.call('GET', `/api/budgets/${paused.id}/ledger`);
    expect(recovered.body.events.map((e: { event_kind: string }) => e.event_kind)).toEqual(['recovered', 'paused']);
  });

  it('cancels the candidate and in-flight runs in scope under a breached hard_stop budget, leaving runs outside the scope alone', async () => {
    const type = await templateWithRoute(app, { agent: 'writer' });
    await app.db.query(`INSERT INTO departments (id, name) VALUES ('press', 'Press') ON CONFLICT DO NOTHING`);
    await app.db.query(
      `INSERT INTO agent_profiles (agent_id, department_id) VALUES ('writer', 'press'), ('editor', 'press') ON CONFLICT (agent_id) DO UPDATE SET department_id = 'press'`,
    );
    await spend('editor', 3);
    await budget({ scope: 'department', scope_id: 'press', cap_usd: 3, action_on_exceed: 'hard_stop' });
    const { rows } = await app.db.query<{ id: string; owner_agent_id: string }>(
      `INSERT INTO workflow_runs (id, workflow_type, status, owner_agent_id) VALUES
         (gen_random_uuid(), 'history', 'running', 'editor'), (gen_random_uuid(), 'history', 'running', 'outsider')
       RETURNING id, owner_agent_id`,
    );
    const candidate = await createRun(app, type);
    const summary = await tick(app);
    expect(summary.budgetEnforcement).toMatchObject({ stopped: 1, held: 0 });
    expect(await runStatus(app, candidate.id)).toMatchObject({ status: 'cancelled' });
    const inScope = rows.find((r) => r.owner_agent_id === 'editor')!;
    const outside = rows.find((r) => r.owner_agent_id === 'outsider')!;
    expect(await runStatus(app, inScope.id)).toMatchObject({ status: 'cancelled' });
    expect(await runStatus(app, outside.id)).toMatchObject({ status: 'running' });
  });

  it('lets a run pass under a warn budget at its cap, counted as warned; a budget just under its cap does nothing', async () => {
    const type = await templateWithRoute(app, { agent: 'writer' });
    const { rows } = await app.db.query<{ id: string }>(`INSERT INTO projects (id, name) VALUES (gen_random_uuid(), 'p') RETURNING id`);
    const { rows: tasks } = await app.db.query<{ id: string }>(
      `INSERT INTO tasks (id, project_id, title) VALUES (gen_random_uuid(), $1, 't') RETURNING id`,
      [rows[0]!.id],
    );
    await app.db.query(
      `INSERT INTO workflow_runs (id, workflow_type, status, task_id, cost_estimate, reported_at) VALUES (gen_random_uuid(), 'history', 'completed', $1, 2, '2026-11-20T01:00:00Z')`,
      [tasks[0]!.id],
    );
    await budget({ scope: 'project', scope_id: rows[0]!.id.toUpperCase(), period: 'monthly', cap_usd: 2, action_on_exceed: 'warn' });
    await budget({ scope: 'fleet', cap_usd: 2.01, action_on_exceed: 'hard_stop' });
    const run = await createRun(app, type, { task_id: tasks[0]!.id });
    const summary = await tick(app);
    expect(summary.budgetEnforcement).toMatchObject({ held: 0, stopped: 0, warned: 1 });
    expect(await runStatus(app, run.id)).toMatchObject({ status: 'dispatched' });
  });
});
