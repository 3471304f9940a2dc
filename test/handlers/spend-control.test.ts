import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { auditActions, claimedRun, runStatus, templateWithRoute, useWorkflowApp } from './workflow-support';

/** Usage while a run is alive, and the hard stop it can trip. */
const app = useWorkflowApp({ emptyQueue: true });

beforeEach(async () => {
  app.clock().set('2026-11-20T12:00:00.000Z');
  await app.db.query('DELETE FROM budgets');
  await app.db.query('DELETE FROM budget_events');
});

async function budget(body: Record<string, unknown>) {
  const res = await app.call('POST', '/api/budgets', {
    body: { name: `b-${Math.random().toString(36).slice(2, 8)}`, period: 'daily', ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.budget as { id: string; name: string };
}

function heartbeat(runId: string, session: string, usage: Record<string, unknown> = {}) {
  return app.call('POST', `/api/workflow-runs/${runId}/heartbeat`, { body: { session_id: session, ...usage } });
}

async function ledgerKinds(budgetId: string): Promise<string[]> {
  const res = await app.call('GET', `/api/budgets/${budgetId}/ledger`);
  return res.body.events.map((e: { event_kind: string }) => e.event_kind);
}

describe('a heartbeat that carries usage', () => {
  it('stores it at once, so spend and costs include the live run', async () => {
    const type = await templateWithRoute(app, { agent: 'writer' });
    const watch = await budget({ scope: 'agent', scope_id: 'writer', cap_usd: 100, action_on_exceed: 'warn' });
    const { id, session } = await claimedRun(app, type);
    const res = await heartbeat(id, session, { input_tokens: 1200, output_tokens: 300, cost_estimate: 0.42, model_id: 'model-a' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ ok: true, run_id: id, status: 'claimed' });
    expect(await runStatus(app, id)).toMatchObject({ input_tokens: 1200, output_tokens: 300, cost_estimate: 0.42, model_id: 'model-a' });
    const budgets = await app.call('GET', '/api/budgets');
    expect(budgets.body.budgets.find((b: { id: string }) => b.id === watch.id).current_spend).toMatchObject({
      usd: 0.42,
      tokens: 1500,
      runs: 1,
    });
    const costs = await app.call('GET', '/api/costs/summary?days=1');
    expect(costs.body.today).toMatchObject({ cost: 0.42, runs: 1 });
    expect((await auditActions(app, id)).map((a) => a.action)).toContain('heartbeat');
  });

  it('is cumulative: a late heartbeat with lower values changes nothing, whatever the order they arrive in', async () => {
    const type = await templateWithRoute(app, { agent: 'writer' });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ input_tokens: fc.nat(5000), cost_estimate: fc.integer({ min: 0, max: 500 }).map((c) => c / 100) }), {
          minLength: 1,
          maxLength: 6,
        }),
        async (reports) => {
          const { id, session } = await claimedRun(app, type);
          for (const report of reports) expect((await heartbeat(id, session, report)).status).toBe(200);
          const run = await runStatus(app, id);
          expect(run.input_tokens).toBe(Math.max(...reports.map((r) => r.input_tokens)));
          expect(run.cost_estimate).toBe(Math.max(...reports.map((r) => r.cost_estimate)));
        },
      ),
      { numRuns: 8 },
    );
  });

  it('refuses usage it cannot store with a 400 naming the field, and changes nothing', async () => {
    const type = await templateWithRoute(app, { agent: 'writer' });
    const { id, session } = await claimedRun(app, type);
    const negative = await heartbeat(id, session, { cost_estimate: -1 });
    expect(negative.status).toBe(400);
    expect(JSON.stringify(negative.body)).toContain('cost_estimate');
    const cached = await heartbeat(id, session, { input_tokens: 10, cached_tokens: 20 });
    expect(cached.status).toBe(400);
    expect(JSON.stringify(cached.body)).toContain('cached_tokens');
    expect(await runStatus(app, id)).toMatchObject({ input_tokens: null, cost_estimate: null });
  });
});

describe("a hard_stop budget that a live run's usage reaches", () => {
  it("cancels the run in the heartbeat's transaction and says stop, then says the same to every later heartbeat and complete", async () => {
    const type = await templateWithRoute(app, { agent: 'writer' });
    const cap = await budget({ scope: 'agent', scope_id: 'writer', cap_usd: 0.5, action_on_exceed: 'hard_stop' });
    const { id, session } = await claimedRun(app, type);

    const under = await heartbeat(id, session, { cost_estimate: 0.3 });
    expect(under.body).toMatchObject({ ok: true, status: 'claimed' });

    const over = await heartbeat(id, session, { cost_estimate: 0.61, input_tokens: 900 });
    expect(over.status, JSON.stringify(over.body)).toBe(200);
    expect(over.body).toMatchObject({ stop: true, reason: 'budget_hard_stop', run_id: id, status: 'cancelled' });
    expect(over.body.budgets).toEqual([expect.objectContaining({ name: cap.name, scope: 'agent', spend_usd: 0.61, cap_usd: 0.5 })]);
    const run = await runStatus(app, id);
    expect(run).toMatchObject({ status: 'cancelled', cost_estimate: 0.61, gateway_session_active: false });
    expect(String(run.last_error)).toContain(cap.name);
    expect((await auditActions(app, id)).map((a) => a.action)).toEqual(expect.arrayContaining(['heartbeat', 'budget_stopped']));
    expect(await ledgerKinds(cap.id)).toEqual(['hard_stopped']);

    const again = await heartbeat(id, session, { cost_estimate: 0.7 });
    expect(again.body).toMatchObject({ stop: true, reason: 'budget_hard_stop', status: 'cancelled' });
    const complete = await app.call('POST', `/api/workflow-runs/${id}/complete`, { body: { session_id: session, cost_estimate: 0.75 } });
    expect(complete.status).toBe(200);
    expect(complete.body).toMatchObject({ stop: true, reason: 'budget_hard_stop', status: 'cancelled' });
    // still cancelled, its later spend kept, one ledger event for the period
    expect(await runStatus(app, id)).toMatchObject({ status: 'cancelled', cost_estimate: 0.75 });
    expect(await ledgerKinds(cap.id)).toEqual(['hard_stopped']);
  });

  it("never stops a live run for pause_new_runs or warn budgets, nor another session's heartbeat", async () => {
    const type = await templateWithRoute(app, { agent: 'writer' });
    await budget({ scope: 'agent', scope_id: 'writer', cap_usd: 0.1, action_on_exceed: 'pause_new_runs' });
    await budget({ scope: 'fleet', cap_usd: 0.1, action_on_exceed: 'warn' });
    const { id, session } = await claimedRun(app, type);
    const res = await heartbeat(id, session, { cost_estimate: 5 });
    expect(res.body).toMatchObject({ ok: true, status: 'claimed' });
    expect(await runStatus(app, id)).toMatchObject({ status: 'claimed', cost_estimate: 5 });
    const stranger = await heartbeat(id, 'agent:other:subagent:x', { cost_estimate: 9 });
    expect(stranger.status).toBe(409);
    expect(await runStatus(app, id)).toMatchObject({ cost_estimate: 5 });
  });
});

describe('unpriced usage in budgets', () => {
  async function unpricedRun(agent: string, input: number, output: number) {
    const { rows } = await app.db.query<{ id: string }>(
      `INSERT INTO workflow_runs (id, workflow_type, status, owner_agent_id, input_tokens, output_tokens, model_id, reported_at)
       VALUES (gen_random_uuid(), 'priceless', 'completed', $1, $2, $3, 'model-without-price', $4) RETURNING id`,
      [agent, input, output, '2026-11-20T09:00:00Z'],
    );
    return rows[0]!.id;
  }

  it('counts unpriced runs in spend, lists them in the ledger, and warns a USD-capped budget once per period', async () => {
    const usd = await budget({ scope: 'agent', scope_id: 'pricey', cap_usd: 10, action_on_exceed: 'hard_stop' });
    const tokens = await budget({ scope: 'fleet', cap_tokens: 1_000_000, action_on_exceed: 'warn' });
    const id = await unpricedRun('pricey', 700, 50);
    await app.db.query(
      `INSERT INTO workflow_runs (id, workflow_type, status, owner_agent_id, input_tokens, output_tokens, cost_estimate, reported_at)
       VALUES (gen_random_uuid(), 'priced', 'completed', 'pricey', 10, 1, 0.25, '2026-11-20T10:00:00Z')`,
    );
    const list = await app.call('GET', '/api/budgets');
    const byId = Object.fromEntries(list.body.budgets.map((b: { id: string }) => [b.id, b]));
    expect(byId[usd.id].current_spend).toEqual({ usd: 0.25, tokens: 761, runs: 2, unpriced_runs: 1 });
    expect(byId[usd.id].status).toBe('under');
    // a token cap counts the unpriced run's tokens like any other
    expect(byId[tokens.id].current_spend).toMatchObject({ tokens: 761, unpriced_runs: 1 });

    const ledger = await app.call('GET', `/api/budgets/${usd.id}/ledger`);
    expect(ledger.body.unpriced_runs).toEqual([
      expect.objectContaining({
        id,
        workflow_type: 'priceless',
        agent_id: 'pricey',
        model_id: 'model-without-price',
        input_tokens: 700,
        output_tokens: 50,
      }),
    ]);
    expect(await ledgerKinds(usd.id)).toEqual(['unpriced_usage']);
    await app.call('GET', `/api/budgets/${usd.id}/ledger`);
    await app.call('GET', '/api/budgets');
    expect(await ledgerKinds(usd.id)).toEqual(['unpriced_usage']);
    expect(await ledgerKinds(tokens.id)).toEqual([]);
  });

  it('leaves the breach-and-recovery ledger as it was: a recovery still follows a breach after an unpriced warning', async () => {
    const cap = await budget({ scope: 'agent', scope_id: 'swinging', cap_usd: 1, action_on_exceed: 'pause_new_runs' });
    await app.db.query(
      `INSERT INTO workflow_runs (id, workflow_type, status, owner_agent_id, input_tokens, output_tokens, cost_estimate, reported_at)
       VALUES (gen_random_uuid(), 'priced', 'completed', 'swinging', 10, 1, 2, '2026-11-20T10:00:00Z')`,
    );
    expect(await ledgerKinds(cap.id)).toEqual(['paused']);
    await unpricedRun('swinging', 5, 5);
    expect(await ledgerKinds(cap.id)).toEqual(['unpriced_usage', 'paused']);
    // the cap is raised: the budget is under again, and the ledger says it recovered
    expect((await app.call('PATCH', `/api/budgets/${cap.id}`, { body: { cap_usd: 50 } })).status).toBe(200);
    expect((await ledgerKinds(cap.id))[0]).toBe('recovered');
  });
});

describe('the overshoot of a hard_stop budget (property)', () => {
  type Step =
    | { kind: 'heartbeat'; run: number; cents: number }
    | { kind: 'complete'; run: number; cents: number }
    | { kind: 'cancel'; run: number }
    | { kind: 'tick' };
  const stepArb: fc.Arbitrary<Step> = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({ kind: fc.constant('heartbeat' as const), run: fc.nat(3), cents: fc.integer({ min: 1, max: 40 }) }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('complete' as const), run: fc.nat(3), cents: fc.integer({ min: 1, max: 40 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), run: fc.nat(3) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('tick' as const) }) },
  );

  it('never lets live and finished spend in scope pass the cap by more than one report of each run live at the breach, when agents obey stop', async () => {
    const type = await templateWithRoute(app, { agent: 'writer' });
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 5, maxLength: 30 }), async (steps) => {
        await app.db.query('DELETE FROM budgets');
        await app.db.query('DELETE FROM workflow_runs');
        const capCents = 100;
        await budget({ scope: 'agent', scope_id: 'writer', cap_usd: capCents / 100, action_on_exceed: 'hard_stop' });
        const runs = [];
        for (let i = 0; i < 4; i++) runs.push({ ...(await claimedRun(app, type)), cents: 0, done: false });
        let largest = 0;
        for (const step of steps) {
          if (step.kind === 'tick') {
            await app.call('POST', '/api/workflow-runs/dispatcher/tick');
            continue;
          }
          const run = runs[step.run]!;
          if (run.done) continue;
          if (step.kind === 'cancel') {
            await app.call('POST', `/api/workflow-runs/${run.id}/cancel`, { body: { reason: 'property' } });
            run.done = true;
            continue;
          }
          largest = Math.max(largest, step.cents);
          const cost = (run.cents + step.cents) / 100;
          const res =
            step.kind === 'heartbeat'
              ? await heartbeat(run.id, run.session, { cost_estimate: cost })
              : await app.call('POST', `/api/workflow-runs/${run.id}/complete`, { body: { session_id: run.session, cost_estimate: cost } });
          if (res.status !== 200) {
            // a run the tick cancelled, or one already ended: an obedient agent stops reporting
            run.done = true;
            continue;
          }
          run.cents += step.cents;
          if (step.kind === 'complete' || res.body.stop === true) run.done = true;
        }
        const { rows } = await app.db.query<{ cents: number }>(
          `SELECT coalesce(round(sum(cost_estimate) * 100), 0)::int AS cents FROM workflow_runs WHERE owner_agent_id = 'writer' OR target_agent_id = 'writer'`,
        );
        expect(rows[0]!.cents).toBeLessThanOrEqual(capCents + runs.length * largest);
        // once the scope is at its cap, the next report of every run still live stops it
        if (rows[0]!.cents >= capCents) {
          for (const run of runs.filter((r) => !r.done)) {
            const next = await heartbeat(run.id, run.session, { cost_estimate: (run.cents + 1) / 100 });
            expect(next.body, JSON.stringify(next.body)).toMatchObject({ stop: true, reason: 'budget_hard_stop' });
          }
        }
      }),
      { numRuns: 6 },
    );
  }, 120_000);
});

describe('reservations of live runs', () => {
  async function expectingRoute(costUsd: number | null, tokens: number | null = null) {
    const type = await templateWithRoute(app, { agent: 'reserver' });
    const put = await app.call('PUT', `/api/workflow-routing/${type}`, {
      body: { agent_id: 'reserver', expected_cost_usd: costUsd, expected_tokens: tokens },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toMatchObject({ expected_cost_usd: costUsd, expected_tokens: tokens });
    return type;
  }

  async function queue(type: string, n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const res = await app.call('POST', '/api/workflow-runs', { body: { workflow_type: type } });
      ids.push(res.body.id);
    }
    return ids;
  }

  async function tick() {
    const res = await app.call('POST', '/api/workflow-runs/dispatcher/tick');
    expect(res.status).toBe(200);
    return res.body;
  }

  it('dispatches only the runs whose expected spend fits beside spend and what live runs reserve, and frees room as usage arrives', async () => {
    const type = await expectingRoute(0.3);
    const cap = await budget({ scope: 'agent', scope_id: 'reserver', cap_usd: 1, action_on_exceed: 'pause_new_runs' });
    const ids = await queue(type, 20);
    const first = await tick();
    expect(first.dispatched).toBe(3);
    expect(first.budgetEnforcement.held).toBe(17);
    const listed = (await app.call('GET', '/api/budgets')).body.budgets.find((b: { id: string }) => b.id === cap.id);
    // status comes from spend alone
    expect(listed).toMatchObject({ reserved: { usd: 0.9, tokens: 0 }, status: 'under', current_spend: { usd: 0 } });
    expect((await tick()).dispatched).toBe(0);

    // a live run reports 0.2 of its 0.3: 0.1 stays reserved
    const { rows: live } = await app.db.query<{ id: string }>(
      `SELECT id FROM workflow_runs WHERE id = ANY($1::uuid[]) AND status = 'dispatched' ORDER BY id`,
      [ids],
    );
    const session = 'agent:reserver:subagent:first';
    expect(
      (await app.call('POST', `/api/workflow-runs/${live[0]!.id}/claim`, { body: { agent_id: 'reserver', session_id: session } })).status,
    ).toBe(200);
    expect((await heartbeat(live[0]!.id, session, { cost_estimate: 0.2 })).body).toMatchObject({ ok: true });
    const after = (await app.call('GET', '/api/budgets')).body.budgets.find((b: { id: string }) => b.id === cap.id);
    expect(after).toMatchObject({ reserved: { usd: 0.7 }, current_spend: { usd: 0.2 } });
    // 0.2 spent + 0.7 reserved + 0.3 expected > 1.00: still no room
    expect((await tick()).dispatched).toBe(0);
    // it completes at 0.2: its reservation ends; 0.2 + 0.6 + 0.3 = 1.1 > 1.00 still; a second run completing at 0.05 makes room
    expect(
      (await app.call('POST', `/api/workflow-runs/${live[0]!.id}/complete`, { body: { session_id: session, cost_estimate: 0.2 } })).status,
    ).toBe(200);
    expect((await tick()).dispatched).toBe(0);
    await app.db.query(`UPDATE workflow_runs SET status = 'completed', cost_estimate = 0.05, reported_at = now() WHERE id = $1`, [
      live[1]!.id,
    ]);
    // 0.25 spent + 0.3 reserved (one live run) + 0.3 = 0.85: one more fits; then 0.25 + 0.6 + 0.3 = 1.15 does not
    expect((await tick()).dispatched).toBe(1);
  });

  it('reserves tokens against a token cap the same way, and leaves warn budgets and routes without expectations alone', async () => {
    const type = await expectingRoute(null, 40_000);
    await budget({ scope: 'fleet', cap_tokens: 100_000, action_on_exceed: 'hard_stop' });
    await budget({ scope: 'agent', scope_id: 'reserver', cap_usd: 0.01, action_on_exceed: 'warn' });
    await queue(type, 5);
    const summary = await tick();
    expect(summary.dispatched).toBe(2);
    expect(summary.budgetEnforcement).toMatchObject({ held: 3, stopped: 0 });
    const plain = await templateWithRoute(app, { agent: 'other-agent' });
    await queue(plain, 2);
    // a route with no expectation reserves nothing and fits while spend + reservations stay within the cap
    expect((await tick()).dispatched).toBe(2);
  });

  it("lets a subscription agent's expected USD take no room in a budget of basis billed, and still count in one of basis list", async () => {
    const type = await expectingRoute(0.3);
    expect((await app.call('PUT', '/api/agents/reserver/billing', { body: { billing: 'subscription' } })).status).toBe(200);
    try {
      const billed = await budget({ scope: 'agent', scope_id: 'reserver', cap_usd: 1, action_on_exceed: 'pause_new_runs' });
      await queue(type, 5);
      // billed: the plan's runs bill nothing, so none of them is held for expected USD
      expect((await tick()).dispatched).toBe(5);
      const view = (await app.call('GET', '/api/budgets')).body.budgets.find((b: { id: string }) => b.id === billed.id);
      expect(view.reserved).toEqual({ usd: 0, tokens: 0 });
      // list: the same expectations count at their shadow price
      await app.call('PATCH', `/api/budgets/${billed.id}`, { body: { basis: 'list' } });
      const listed = (await app.call('GET', '/api/budgets')).body.budgets.find((b: { id: string }) => b.id === billed.id);
      expect(listed.reserved.usd).toBe(1.5);
      await queue(type, 2);
      const held = await tick();
      expect(held.dispatched).toBe(0);
      expect(held.budgetEnforcement.held).toBe(2);
    } finally {
      await app.call('PUT', '/api/agents/reserver/billing', { body: { billing: null } });
    }
  });

  it('refuses a negative or non-numeric expectation with a 400 naming the field', async () => {
    const type = await templateWithRoute(app, { agent: 'reserver' });
    for (const body of [{ expected_cost_usd: -1 }, { expected_tokens: 1.5 }, { expected_cost_usd: 'lots' }]) {
      const res = await app.call('PUT', `/api/workflow-routing/${type}`, { body: { agent_id: 'reserver', ...body } });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(res.body)).toContain(Object.keys(body)[0]!);
    }
  });
});
