import { beforeEach, describe, expect, it } from 'vitest';
import { useTestApp } from '../support/use-app';
import { createRun, fakeRuntime, fakeTime, templateWithRoute, tick } from './workflow-support';

/** GET /api/budgets/burn-down: every budget's current period day by day, its reservations, line and forecast, in one request. */
const app = useTestApp();
let clock: ReturnType<typeof fakeTime>;

beforeEach(async () => {
  clock = fakeTime(app, '2026-11-20T12:00:00.000Z');
  fakeRuntime(app);
  await app.db.query('DELETE FROM budgets');
  await app.db.query('DELETE FROM workflow_runs');
  await app.db.query('DELETE FROM workflow_agent_routing');
});

async function spend(run: {
  usd?: number | null;
  at: string;
  agent?: string;
  billing?: string;
  input?: number;
  output?: number;
  type?: string;
  status?: string;
  task?: string;
}) {
  await app.db.query(
    `INSERT INTO workflow_runs (id, workflow_type, status, owner_agent_id, cost_estimate, billing, input_tokens, output_tokens, reported_at, task_id)
     VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      run.type ?? 'history',
      run.status ?? 'completed',
      run.agent ?? 'writer',
      run.usd ?? null,
      run.billing ?? null,
      run.input ?? 0,
      run.output ?? 0,
      run.at,
      run.task ?? null,
    ],
  );
}

async function budget(body: Record<string, unknown>) {
  const res = await app.call('POST', '/api/budgets', {
    body: { name: `b-${Math.random()}`, period: 'monthly', action_on_exceed: 'warn', ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.budget as { id: string; name: string };
}

async function burnDowns() {
  const res = await app.call('GET', '/api/budgets/burn-down');
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { available: true; burn_downs: Array<Record<string, any>>; timestamp: string };
}

const burnDownOf = (answer: Awaited<ReturnType<typeof burnDowns>>, id: string) => answer.burn_downs.find((b) => b.budget.id === id)!;

describe('GET /api/budgets/burn-down', () => {
  it('answers the period day by day, cumulative, with the list-basis shadow, the reservations of live runs, the line and the forecast', async () => {
    await spend({ usd: 10, at: '2026-11-02T08:00:00Z' });
    await spend({ usd: 5, at: '2026-11-10T08:00:00Z' });
    await spend({ usd: 4, at: '2026-11-10T09:00:00Z', billing: 'subscription' });
    await spend({ usd: 3, at: '2026-11-20T06:00:00Z' });
    await spend({ usd: 50, at: '2026-10-31T23:59:59Z' }); // last period
    // a live run whose route expects $7 and which has reported nothing: it reserves $7
    await app.db.query(
      `INSERT INTO workflow_agent_routing (workflow_type, agent_id, priority, timeout_minutes, expected_cost_usd) VALUES ('expensive', 'writer', 0, 60, 7)`,
    );
    await spend({ type: 'expensive', status: 'running', at: '2026-11-20T11:00:00Z' });
    const billed = await budget({ name: 'Fleet monthly', scope: 'fleet', cap_usd: 100 });
    const list = await budget({
      name: 'Writer at list',
      scope: 'agent',
      scope_id: 'writer',
      cap_usd: 20,
      action_on_exceed: 'hard_stop',
      basis: 'list',
    });

    const answer = await burnDowns();
    expect(answer.timestamp).toBe('2026-11-20T12:00:00.000Z');
    expect(answer.burn_downs.map((b) => b.budget.name).sort()).toEqual(['Fleet monthly', 'Writer at list']);
    const fleet = burnDownOf(answer, billed.id);
    expect(fleet).toMatchObject({
      unit: 'usd',
      window_start: '2026-11-01T00:00:00.000Z',
      window_end: '2026-12-01T00:00:00.000Z',
      spent: 18,
      reserved: 7,
      line: { action: 'warn', amount: 100 },
      past_line: false,
      stopped_runs: [],
    });
    expect(fleet.budget).toMatchObject({ period_key: '2026-11', status: 'under', current_spend: { usd: 18, runs: 5 } });
    // every day of the period up to today, none after
    expect(fleet.days.map((d: { date: string }) => d.date)).toEqual(
      Array.from({ length: 20 }, (_, i) => `2026-11-${String(i + 1).padStart(2, '0')}`),
    );
    expect(fleet.days[0]).toEqual({ date: '2026-11-01', billed: 0, list: 0 });
    expect(fleet.days[1]).toEqual({ date: '2026-11-02', billed: 10, list: 10 });
    expect(fleet.days[9]).toEqual({ date: '2026-11-10', billed: 15, list: 19 });
    expect(fleet.days[19]).toEqual({ date: '2026-11-20', billed: 18, list: 22 });
    // 18 in 19.5 days, carried over the 10.5 days left
    expect(fleet.forecast.pace_per_day).toBeCloseTo(18 / 19.5, 5);
    expect(fleet.forecast.at_end).toBeCloseTo(18 + (18 / 19.5) * 10.5, 5);
    expect(fleet.forecast.reaches_cap_at).toBeNull();

    const writer = burnDownOf(answer, list.id);
    // basis list: the shadow counts, and the subscription run's reservation would too
    expect(writer).toMatchObject({ spent: 22, reserved: 7, line: { action: 'hard_stop', amount: 20 }, past_line: true });
    expect(writer.budget.status).toBe('breached');
    expect(writer.forecast.reaches_cap_at).toBeNull();
  });

  it('says when the pace reaches the line inside the period, and draws a budget in tokens in tokens', async () => {
    await spend({ usd: 30, at: '2026-11-05T00:00:00Z', input: 900, output: 100 });
    const usd = await budget({ name: 'Reaches', scope: 'fleet', cap_usd: 40, action_on_exceed: 'pause_new_runs' });
    const tokens = await budget({ name: 'Tokens', scope: 'agent', scope_id: 'writer', cap_tokens: 5000, period: 'weekly' });
    const answer = await burnDowns();
    // $30 in 19.5 days: $40 after 26 days, on the 27th at 00:00
    expect(burnDownOf(answer, usd.id).forecast.reaches_cap_at).toBe('2026-11-27T00:00:00.000Z');
    const t = burnDownOf(answer, tokens.id);
    // ISO week 47 of 2026: Monday 16 November to Sunday 22; the run of the 5th is in another week
    expect(t).toMatchObject({ unit: 'tokens', window_start: '2026-11-16T00:00:00.000Z', spent: 0, line: { action: 'warn', amount: 5000 } });
    await spend({ at: '2026-11-17T00:00:00Z', input: 1500, output: 500 });
    const again = burnDownOf(await burnDowns(), tokens.id);
    expect(again.days).toEqual([
      { date: '2026-11-16', billed: 0, list: 0 },
      { date: '2026-11-17', billed: 2000, list: 2000 },
      { date: '2026-11-18', billed: 2000, list: 2000 },
      { date: '2026-11-19', billed: 2000, list: 2000 },
      { date: '2026-11-20', billed: 2000, list: 2000 },
    ]);
    expect(again.spent).toBe(2000);
  });

  it('sums each scope as derived spend does: the last day of every budget is its current spend', async () => {
    await app.db.query(`INSERT INTO departments (id, name) VALUES ('press', 'Press') ON CONFLICT DO NOTHING`);
    await app.db.query(
      `INSERT INTO agent_profiles (agent_id, department_id) VALUES ('writer', 'press') ON CONFLICT (agent_id) DO UPDATE SET department_id = 'press'`,
    );
    const { rows } = await app.db.query<{ id: string }>(
      `INSERT INTO projects (id, name) VALUES (gen_random_uuid(), 'Burned') RETURNING id`,
    );
    const { rows: tasks } = await app.db.query<{ id: string }>(
      `INSERT INTO tasks (id, project_id, title) VALUES (gen_random_uuid(), $1, 't') RETURNING id`,
      [rows[0]!.id],
    );
    await spend({ usd: 1.25, at: '2026-11-03T00:00:00Z', agent: 'writer', task: tasks[0]!.id });
    await spend({ usd: 2.5, at: '2026-11-19T00:00:00Z', agent: 'editor' });
    await spend({ usd: 0.1, at: '2026-11-20T00:00:00Z', agent: 'writer' });
    await spend({ usd: 0.2, at: '2026-11-20T01:00:00Z', agent: 'writer' });
    const made = [
      await budget({ scope: 'fleet', cap_usd: 10, period: 'daily' }),
      await budget({ scope: 'agent', scope_id: 'writer', cap_usd: 10 }),
      await budget({ scope: 'department', scope_id: 'press', cap_usd: 10, period: 'weekly' }),
      await budget({ scope: 'project', scope_id: rows[0]!.id, cap_usd: 10 }),
      await budget({ scope: 'agent', scope_id: 'editor', cap_usd: 10 }),
    ];
    const answer = await burnDowns();
    const lastDay = made.map((b) => burnDownOf(answer, b.id).days.at(-1).billed);
    expect(lastDay).toEqual([0.3, 1.55, 0.3, 1.25, 2.5]);
    expect(lastDay).toEqual(made.map((b) => burnDownOf(answer, b.id).budget.current_spend.usd));
  });

  it('lists the runs a hard-stopped budget cancelled this period, and no run it did not', async () => {
    const type = await templateWithRoute(app, { agent: 'writer' });
    await spend({ usd: 5, at: '2026-11-20T01:00:00Z' });
    const stopped = await budget({ name: 'Stopper', scope: 'fleet', cap_usd: 5, action_on_exceed: 'hard_stop' });
    const candidate = await createRun(app, type);
    const summary = await tick(app);
    expect(summary.budgetEnforcement).toMatchObject({ stopped: 1 });
    // cancelled for another reason: not the budget's doing
    await app.db.query(
      `INSERT INTO workflow_runs (id, workflow_type, status, finished_at, last_error) VALUES (gen_random_uuid(), 'history', 'cancelled', $1, 'operator')`,
      [clock.now()],
    );
    const b = burnDownOf(await burnDowns(), stopped.id);
    expect(b.past_line).toBe(true);
    expect(b.stopped_runs).toHaveLength(1);
    expect(b.stopped_runs[0]).toMatchObject({ id: candidate.id, workflow_type: type, finished_at: '2026-11-20T12:00:00.000Z' });
  });

  it('answers no budgets as an empty list, and appends the ledger events now due', async () => {
    expect((await burnDowns()).burn_downs).toEqual([]);
    await spend({ usd: 2, at: '2026-11-20T01:00:00Z' });
    const warned = await budget({ scope: 'fleet', cap_usd: 1, period: 'daily' });
    await burnDowns();
    const ledger = await app.call('GET', `/api/budgets/${warned.id}/ledger`);
    expect(ledger.body.events.map((e: { event_kind: string }) => e.event_kind)).toEqual(['warned']);
  });

  it('answers 200 {available: false, reason: query_failed} when the rollup cannot be read, and over real HTTP otherwise', async () => {
    await budget({ scope: 'fleet', cap_usd: 1 });
    await app.db.query('ALTER TABLE run_usage_daily RENAME TO run_usage_daily_away');
    try {
      const res = await app.call('GET', '/api/budgets/burn-down');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ available: false, reason: 'query_failed' });
    } finally {
      await app.db.query('ALTER TABLE run_usage_daily_away RENAME TO run_usage_daily');
    }
    const http = await app.http('GET', '/api/budgets/burn-down');
    expect(http.status).toBe(200);
    expect(http.body.burn_downs).toHaveLength(1);
  });
});
