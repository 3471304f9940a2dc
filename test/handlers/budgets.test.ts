import fc from 'fast-check';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { movableClock } from '../support/fakes';
import { useTestApp } from '../support/use-app';

const app = useTestApp();
let clock: ReturnType<typeof movableClock>;
let projectId: string;
let taskId: string;

async function seedRun(run: {
  agent?: string | null;
  cost?: number | null;
  input?: number;
  output?: number;
  cached?: number;
  at?: string;
  task?: string | null;
}) {
  await app.db.query(
    `INSERT INTO workflow_runs (id, workflow_type, owner_agent_id, task_id, status, cost_estimate, input_tokens, output_tokens, cached_tokens, reported_at)
     VALUES (gen_random_uuid(), 'research', $1, $2, 'completed', $3, $4, $5, $6, $7)`,
    [run.agent ?? null, run.task ?? null, run.cost ?? null, run.input ?? 0, run.output ?? 0, run.cached ?? 0, run.at ?? clock.now()],
  );
}

async function create(body: Record<string, unknown>) {
  return app.call('POST', '/api/budgets', { body });
}

beforeAll(async () => {
  const project = await app.call('POST', '/api/projects', { body: { name: 'Budgeted' } });
  projectId = project.body.id;
  const { rows } = await app.db.query<{ id: string }>(
    `INSERT INTO tasks (id, project_id, title) VALUES (gen_random_uuid(), $1, 't') RETURNING id`,
    [projectId],
  );
  taskId = rows[0]!.id;
  await app.db.query(`INSERT INTO departments (id, name) VALUES ('ops', 'Operations')`);
  await app.db.query(`INSERT INTO agent_profiles (agent_id, department_id) VALUES ('ops-1', 'ops'), ('ops-2', 'ops')`);
});
beforeEach(async () => {
  clock = movableClock('2026-11-20T12:00:00Z');
  app.ctx.deps.clock = clock;
  await app.db.query('DELETE FROM budgets');
  await app.db.query('DELETE FROM workflow_runs');
});

describe('POST /api/budgets', () => {
  it('creates a budget with derived fields, audits it, and stores fleet scope_id as null whatever was sent', async () => {
    const res = await create({
      name: 'Fleet monthly',
      scope: 'fleet',
      scope_id: 'anything',
      period: 'monthly',
      cap_usd: 50,
      action_on_exceed: 'warn',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ available: true, timestamp: '2026-11-20T12:00:00.000Z' });
    expect(res.body.budget).toMatchObject({
      name: 'Fleet monthly',
      scope: 'fleet',
      scope_id: null,
      period: 'monthly',
      cap_usd: 50,
      cap_tokens: null,
      action_on_exceed: 'warn',
      active: true,
      period_key: '2026-11',
      current_spend: { usd: 0, tokens: 0, runs: 0 },
      pct_of_cap: 0,
      status: 'under',
    });
    const { rows } = await app.db.query('SELECT scope_id FROM budgets WHERE id = $1', [res.body.budget.id]);
    expect(rows[0]).toEqual({ scope_id: null });
    const audit = await app.db.query(`SELECT action, actor FROM audit_log WHERE entity_type = 'budget' AND entity_id = $1`, [
      res.body.budget.id,
    ]);
    expect(audit.rows).toEqual([{ action: 'created', actor: 'dashboard-operator' }]);
  });

  it('refuses anything but exactly one cap with 400 validation_failed and details', async () => {
    const base = { name: 'b', scope: 'agent', scope_id: 'a1', period: 'daily', action_on_exceed: 'warn' };
    for (const caps of [
      {},
      { cap_usd: 1, cap_tokens: 10 },
      { cap_usd: null, cap_tokens: null },
      { cap_usd: 0 },
      { cap_tokens: -5 },
      { cap_tokens: 1.5 },
    ]) {
      const res = await create({ ...base, ...caps });
      expect(res.status, JSON.stringify(caps)).toBe(400);
      expect(res.body.error).toBe('validation_failed');
      expect(res.body.details.length).toBeGreaterThan(0);
      expect(res.body.details[0].path).toMatch(/cap_/);
    }
    expect((await app.db.query('SELECT count(*)::int AS n FROM budgets')).rows[0]).toEqual({ n: 0 });
  });

  it('requires scope_id for agent, department and project scopes, and refuses bad enums naming the field', async () => {
    for (const scope of ['agent', 'department', 'project']) {
      const res = await create({ name: 'b', scope, period: 'daily', cap_usd: 1, action_on_exceed: 'warn' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'validation_failed', details: [{ path: 'scope_id', message: `required for scope ${scope}` }] });
    }
    const badScope = await create({ name: 'b', scope: 'team', scope_id: 'x', period: 'daily', cap_usd: 1, action_on_exceed: 'warn' });
    expect(badScope.body.details.map((d: { path: string }) => d.path)).toContain('scope');
    const badPeriod = await create({ name: 'b', scope: 'fleet', period: 'yearly', cap_usd: 1, action_on_exceed: 'stop' });
    expect(badPeriod.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['action_on_exceed', 'period']);
    const unknownField = await create({ name: 'b', scope: 'fleet', period: 'daily', cap_usd: 1, action_on_exceed: 'warn', colour: 'red' });
    expect(unknownField.status).toBe(400);
    const noProject = await create({
      name: 'b',
      scope: 'project',
      scope_id: '00000000-0000-4000-8000-000000000000',
      period: 'daily',
      cap_usd: 1,
      action_on_exceed: 'warn',
    });
    expect(noProject.status).toBe(400);
    expect(noProject.body.details[0].path).toBe('scope_id');
    const noDepartment = await create({
      name: 'b',
      scope: 'department',
      scope_id: 'nowhere',
      period: 'daily',
      cap_usd: 1,
      action_on_exceed: 'warn',
    });
    expect(noDepartment.status).toBe(400);
  });

  it('refuses a second active budget for the same scope, scope_id and period with 409, and allows an inactive one', async () => {
    const body = { name: 'a1 daily', scope: 'agent', scope_id: 'a1', period: 'daily', cap_usd: 1, action_on_exceed: 'warn' };
    const first = await create(body);
    const second = await create({ ...body, name: 'again', cap_tokens: 5, cap_usd: undefined });
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ error: 'duplicate_active_budget', existing_budget_id: first.body.budget.id });
    expect(second.body.details[0].path).toBe('scope');
    expect((await create({ ...body, period: 'weekly' })).status).toBe(201);
    expect((await create({ ...body, scope_id: 'a2' })).status).toBe(201);
    const inactive = await create({ ...body, active: false });
    expect(inactive.status).toBe(201);
    const reactivate = await app.call('PATCH', `/api/budgets/${inactive.body.budget.id}`, { body: { active: true } });
    expect(reactivate.status).toBe(409);
    const fleet1 = await create({ name: 'f', scope: 'fleet', period: 'daily', cap_usd: 1, action_on_exceed: 'warn' });
    const fleet2 = await create({ name: 'f2', scope: 'fleet', scope_id: 'other', period: 'daily', cap_usd: 1, action_on_exceed: 'warn' });
    expect(fleet1.status).toBe(201);
    expect(fleet2.status).toBe(409);
  });

  it('lets only one of 10 concurrent duplicate creates succeed', async () => {
    const body = { name: 'race', scope: 'agent', scope_id: 'racer', period: 'monthly', cap_usd: 1, action_on_exceed: 'warn' };
    const results = await Promise.all(Array.from({ length: 10 }, () => create(body)));
    expect(results.map((r) => r.status).sort()).toEqual([201, ...Array(9).fill(409)]);
  });

  it('never answers a random body with a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            name: fc.oneof(fc.string(), fc.integer()),
            scope: fc.constantFrom('agent', 'department', 'project', 'fleet', 'x'),
            scope_id: fc.oneof(fc.string(), fc.constant(null), fc.uuid()),
            period: fc.constantFrom('daily', 'weekly', 'monthly', 'hourly'),
            cap_usd: fc.oneof(fc.double(), fc.constant(null), fc.string()),
            cap_tokens: fc.oneof(fc.integer(), fc.constant(null)),
            action_on_exceed: fc.constantFrom('warn', 'pause_new_runs', 'hard_stop', 'explode'),
            active: fc.oneof(fc.boolean(), fc.constant('yes')),
          },
          { requiredKeys: [] },
        ),
        async (body) => {
          const res = await create(body);
          expect(res.status).toBeLessThan(500);
          await app.db.query('DELETE FROM budgets');
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('derived spend and status', () => {
  it('derives spend by scope: agent, department through the agent profile, project through the task, fleet', async () => {
    await seedRun({ agent: 'ops-1', cost: 1, input: 100, output: 50, cached: 80 });
    await seedRun({ agent: 'ops-2', cost: 2, task: taskId });
    await seedRun({ agent: 'other', cost: 4 });
    await seedRun({ agent: 'ops-1', cost: 8, at: '2026-10-31T23:59:59.999Z' }); // last month
    await create({ name: 'agent', scope: 'agent', scope_id: 'ops-1', period: 'monthly', cap_tokens: 1000, action_on_exceed: 'warn' });
    await create({ name: 'dept', scope: 'department', scope_id: 'ops', period: 'monthly', cap_usd: 10, action_on_exceed: 'warn' });
    await create({ name: 'project', scope: 'project', scope_id: projectId, period: 'monthly', cap_usd: 10, action_on_exceed: 'warn' });
    await create({ name: 'fleet', scope: 'fleet', period: 'monthly', cap_usd: 10, action_on_exceed: 'warn' });
    const res = await app.call('GET', '/api/budgets');
    expect(res.status).toBe(200);
    const byName = Object.fromEntries(res.body.budgets.map((b: { name: string }) => [b.name, b]));
    // cached tokens are a subset of input: 100 + 50, not 230
    expect(byName.agent.current_spend).toEqual({ usd: 1, tokens: 150, runs: 1, unpriced_runs: 0 });
    expect(byName.agent.pct_of_cap).toBe(15);
    expect(byName.dept.current_spend).toMatchObject({ usd: 3, runs: 2 });
    expect(byName.project.current_spend).toMatchObject({ usd: 2, runs: 1 });
    expect(byName.fleet.current_spend).toMatchObject({ usd: 7, runs: 3 });
    expect(byName.fleet.pct_of_cap).toBe(70);
  });

  for (const unit of ['usd', 'tokens'] as const) {
    it(`is under just below the cap, and breached exactly at and above it (${unit})`, async () => {
      const cap = unit === 'usd' ? { cap_usd: 10 } : { cap_tokens: 1000 };
      const created = await create({
        name: 'edge',
        scope: 'agent',
        scope_id: 'edge',
        period: 'daily',
        ...cap,
        action_on_exceed: 'pause_new_runs',
      });
      const id = created.body.budget.id;
      const status = async () => (await app.call('GET', '/api/budgets')).body.budgets.find((b: { id: string }) => b.id === id);
      if (unit === 'usd') await seedRun({ agent: 'edge', cost: 9.99 });
      else await seedRun({ agent: 'edge', input: 900, output: 99 });
      expect(await status()).toMatchObject({ status: 'under' });
      if (unit === 'usd') await seedRun({ agent: 'edge', cost: 0.01 });
      else await seedRun({ agent: 'edge', output: 1 });
      expect(await status()).toMatchObject({ status: 'breached', pct_of_cap: 100 });
      if (unit === 'usd') await seedRun({ agent: 'edge', cost: 0.5 });
      else await seedRun({ agent: 'edge', input: 50 });
      expect(await status()).toMatchObject({ status: 'breached', pct_of_cap: 105 });
    });
  }

  it('derives the same spend for a long list (grouped in one statement) as for one budget (filtered aggregate)', async () => {
    await seedRun({ agent: 'ops-1', cost: 1.25, input: 10, output: 5, task: taskId });
    await seedRun({ agent: 'ops-2', cost: 2, at: '2026-11-16T00:00:00Z' });
    await seedRun({ agent: 'x-9', cost: 4, at: '2026-11-01T00:00:00Z' });
    const specs: Array<Record<string, unknown>> = [];
    for (const period of ['daily', 'weekly', 'monthly']) {
      specs.push(
        { scope: 'fleet', period },
        { scope: 'department', scope_id: 'ops', period },
        { scope: 'project', scope_id: projectId, period },
      );
      for (const agent of ['ops-1', 'ops-2', 'x-9', 'nobody']) specs.push({ scope: 'agent', scope_id: agent, period });
    }
    for (const [i, spec] of specs.entries()) {
      expect((await create({ name: `b${i}`, cap_usd: 3, action_on_exceed: 'warn', ...spec })).status).toBe(201);
    }
    const list = await app.call('GET', '/api/budgets');
    expect(list.body.budgets).toHaveLength(21);
    for (const b of list.body.budgets) {
      const ledger = await app.call('GET', `/api/budgets/${b.id}/ledger`);
      expect(ledger.body.spend, b.name).toEqual(b.current_spend);
    }
    const fleetMonthly = list.body.budgets.find((b: { scope: string; period: string }) => b.scope === 'fleet' && b.period === 'monthly');
    expect(fleetMonthly.current_spend).toEqual({ usd: 7.25, tokens: 15, runs: 3, unpriced_runs: 0 });
    const fleetWeekly = list.body.budgets.find((b: { scope: string; period: string }) => b.scope === 'fleet' && b.period === 'weekly');
    expect(fleetWeekly.current_spend).toMatchObject({ usd: 3.25, runs: 2 });
  });

  it('shows warned for a warn budget at its cap', async () => {
    await seedRun({ agent: 'w', cost: 5 });
    const res = await create({ name: 'warn', scope: 'agent', scope_id: 'w', period: 'weekly', cap_usd: 5, action_on_exceed: 'warn' });
    expect(res.body.budget).toMatchObject({ status: 'warned', period_key: '2026-W47', pct_of_cap: 100 });
  });
});

describe('PATCH /api/budgets/:id', () => {
  it('sets one cap and clears the sibling, audits before and after', async () => {
    const created = await create({ name: 'p', scope: 'fleet', period: 'daily', cap_usd: 5, action_on_exceed: 'warn' });
    const id = created.body.budget.id;
    const res = await app.call('PATCH', `/api/budgets/${id}`, { body: { cap_tokens: 500, name: 'renamed' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ available: true, budget: { id, name: 'renamed', cap_usd: null, cap_tokens: 500, status: 'under' } });
    const audit = await app.db.query<{ action: string; old_value: { cap_usd: number }; new_value: { cap_tokens: number } }>(
      `SELECT action, old_value, new_value FROM audit_log WHERE entity_type = 'budget' AND entity_id = $1 ORDER BY id`,
      [id],
    );
    expect(audit.rows.map((r) => r.action)).toEqual(['created', 'updated']);
    expect(audit.rows[1]!.old_value.cap_usd).toBe(5);
    expect(audit.rows[1]!.new_value.cap_tokens).toBe(500);
  });

  it('refuses two caps in one call, a null cap, an empty or unknown field with 400 validation_failed', async () => {
    const created = await create({ name: 'p', scope: 'fleet', period: 'daily', cap_usd: 5, action_on_exceed: 'warn' });
    const id = created.body.budget.id;
    for (const body of [
      { cap_usd: 1, cap_tokens: 2 },
      { cap_usd: null },
      {},
      { scope: 'agent' },
      { action_on_exceed: 'nope' },
      { active: 'no' },
    ]) {
      const res = await app.call('PATCH', `/api/budgets/${id}`, { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('validation_failed');
      expect(Array.isArray(res.body.details)).toBe(true);
    }
    const { rows } = await app.db.query('SELECT cap_usd, cap_tokens FROM budgets WHERE id = $1', [id]);
    expect(rows[0]).toEqual({ cap_usd: 5, cap_tokens: null });
  });

  it('answers an unknown or malformed id with 404 {available: false, reason: not_found}', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'nope']) {
      const patch = await app.call('PATCH', `/api/budgets/${id}`, { body: { name: 'x' } });
      expect(patch.status).toBe(404);
      expect(patch.body).toEqual({ available: false, reason: 'not_found' });
      const ledger = await app.call('GET', `/api/budgets/${id}/ledger`);
      expect(ledger.status).toBe(404);
      expect(ledger.body).toEqual({ available: false, reason: 'not_found' });
    }
  });
});

describe('GET /api/budgets/:id/ledger', () => {
  it('reports the current period and emits each ledger event once per (budget, period, kind)', async () => {
    await seedRun({ agent: 'l', cost: 12 });
    const created = await create({
      name: 'ledger',
      scope: 'agent',
      scope_id: 'l',
      period: 'monthly',
      cap_usd: 10,
      action_on_exceed: 'hard_stop',
    });
    const id = created.body.budget.id;
    await app.call('GET', '/api/budgets');
    const res = await app.call('GET', `/api/budgets/${id}/ledger?period=current`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      available: true,
      budget: { id, name: 'ledger', scope: 'agent', period: 'monthly', cap_usd: 10, action_on_exceed: 'hard_stop', active: true },
      period_key: '2026-11',
      window_start: '2026-11-01T00:00:00.000Z',
      spend: { usd: 12, tokens: 0, runs: 1 },
      pct_of_cap: 120,
      status: 'breached',
    });
    expect(res.body.events).toHaveLength(1);
    expect(res.body.events[0]).toMatchObject({
      budget_id: id,
      period_key: '2026-11',
      event_kind: 'hard_stopped',
      detail: { spend_usd: 12, cap_usd: 10 },
    });
  });

  it('recovers a breached budget at the period rollover, once, newest event first', async () => {
    await seedRun({ agent: 'r', input: 600, output: 600 });
    const created = await create({
      name: 'roll',
      scope: 'agent',
      scope_id: 'r',
      period: 'daily',
      cap_tokens: 1000,
      action_on_exceed: 'pause_new_runs',
    });
    const id = created.body.budget.id;
    const before = await app.call('GET', `/api/budgets/${id}/ledger`);
    expect(before.body).toMatchObject({ status: 'breached', period_key: '2026-11-20' });
    clock.set('2026-11-21T00:00:00Z');
    const after = await app.call('GET', `/api/budgets/${id}/ledger`);
    expect(after.body).toMatchObject({ status: 'under', period_key: '2026-11-21', spend: { usd: 0, tokens: 0, runs: 0 }, pct_of_cap: 0 });
    await app.call('GET', `/api/budgets/${id}/ledger`);
    await app.call('GET', '/api/budgets');
    expect(after.body.events.map((e: { event_kind: string; period_key: string }) => [e.event_kind, e.period_key])).toEqual([
      ['recovered', '2026-11-21'],
      ['paused', '2026-11-20'],
    ]);
    const { rows } = await app.db.query('SELECT count(*)::int AS n FROM budget_events WHERE budget_id = $1', [id]);
    expect(rows[0]).toEqual({ n: 2 });
    // the previous period stays readable by its key
    const previous = await app.call('GET', `/api/budgets/${id}/ledger?period=2026-11-20`);
    expect(previous.body).toMatchObject({ period_key: '2026-11-20', status: 'breached', spend: { tokens: 1200 } });
  });

  it('recovers when the cap is raised, and never for a budget that was never breached', async () => {
    await seedRun({ agent: 'c', cost: 3 });
    const breached = await create({
      name: 'raise',
      scope: 'agent',
      scope_id: 'c',
      period: 'monthly',
      cap_usd: 2,
      action_on_exceed: 'warn',
    });
    const calm = await create({ name: 'calm', scope: 'agent', scope_id: 'c', period: 'daily', cap_usd: 100, action_on_exceed: 'warn' });
    await app.call('GET', '/api/budgets');
    await app.call('PATCH', `/api/budgets/${breached.body.budget.id}`, { body: { cap_usd: 5 } });
    const ledger = await app.call('GET', `/api/budgets/${breached.body.budget.id}/ledger`);
    expect(ledger.body.events.map((e: { event_kind: string }) => e.event_kind)).toEqual(['recovered', 'warned']);
    const calmLedger = await app.call('GET', `/api/budgets/${calm.body.budget.id}/ledger`);
    expect(calmLedger.body.events).toEqual([]);
  });

  it('returns at most 100 events, newest first', async () => {
    const created = await create({ name: 'many', scope: 'fleet', period: 'daily', cap_usd: 1, action_on_exceed: 'warn' });
    const id = created.body.budget.id;
    await app.db.query(
      `INSERT INTO budget_events (budget_id, period_key, event_kind, created_at)
       SELECT $1, 'k' || i, 'recovered', timestamptz '2026-01-01' + i * interval '1 hour' FROM generate_series(1, 130) i`,
      [id],
    );
    const res = await app.call('GET', `/api/budgets/${id}/ledger`);
    expect(res.body.events).toHaveLength(100);
    expect(res.body.events[0].period_key).toBe('k130');
    expect(res.body.events[99].period_key).toBe('k31');
  });

  it('refuses a period that is neither current nor a key of the budget form with 400 validation_failed', async () => {
    const created = await create({ name: 'p', scope: 'fleet', period: 'monthly', cap_usd: 1, action_on_exceed: 'warn' });
    const res = await app.call('GET', `/api/budgets/${created.body.budget.id}/ledger?period=2026-11-20`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'validation_failed',
      details: [{ path: 'period', message: 'must be current or a monthly period key (YYYY-MM)' }],
    });
  });
});

describe('budget endpoints when a query fails', () => {
  it('answers 200 {available: false, reason: query_failed} and writes nothing', async () => {
    await app.db.query('ALTER TABLE budgets RENAME TO budgets_away');
    try {
      const list = await app.call('GET', '/api/budgets');
      expect(list.status).toBe(200);
      expect(list.body).toEqual({ available: false, reason: 'query_failed' });
      const created = await create({ name: 'x', scope: 'fleet', period: 'daily', cap_usd: 1, action_on_exceed: 'warn' });
      expect(created.status).toBe(200);
      expect(created.body).toEqual({ available: false, reason: 'query_failed' });
    } finally {
      await app.db.query('ALTER TABLE budgets_away RENAME TO budgets');
    }
    const audit = await app.db.query(`SELECT count(*)::int AS n FROM audit_log WHERE entity_type = 'budget' AND new_value->>'name' = 'x'`);
    expect(audit.rows[0]).toEqual({ n: 0 });
  });
});
