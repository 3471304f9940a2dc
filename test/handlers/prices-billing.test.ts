import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useTestApp } from '../support/use-app';
import {
  auditActions,
  claimedRun,
  createRun,
  emptyDispatchQueue,
  fakeRuntime,
  fakeTime,
  runStatus,
  templateWithRoute,
} from './workflow-support';

/** Honest prices: the stored price table, price history, cache writes, repricing and billing modes. */
const pricesFile = path.join(os.tmpdir(), `prices-billing-${process.pid}-${Date.now()}.json`);
// registered before the app's own hook, so the file exists when the app reads it
beforeAll(() =>
  writeFile(
    pricesFile,
    JSON.stringify({
      'file-model': { input_per_million: 2, output_per_million: 10 },
      'both-model': { input_per_million: 100, output_per_million: 100 },
    }),
  ),
);
const app = useTestApp({ env: { MODEL_PRICES_FILE: pricesFile } });
let clock: ReturnType<typeof fakeTime>;
let type: string;

beforeEach(async () => {
  clock = fakeTime(app, '2026-11-20T12:00:00.000Z');
  fakeRuntime(app);
  await emptyDispatchQueue(app);
  await app.db.query('DELETE FROM model_prices');
  await app.db.query('DELETE FROM budgets');
  await app.db.query('DELETE FROM agent_profiles');
  type = await templateWithRoute(app, { agent: 'writer' });
});

async function putPrices(prices: Record<string, unknown>) {
  const res = await app.call('PUT', '/api/costs/prices', { body: { prices } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { models: Array<{ model_id: string; source: string; prices: unknown[] }> };
}

async function report(runId: string, usage: Record<string, unknown>) {
  const res = await app.call('PATCH', `/api/workflow-runs/${runId}`, { body: usage });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Record<string, unknown>;
}

async function outbox(name: string): Promise<Array<Record<string, unknown>>> {
  const { rows } = await app.db.query<{ payload: Record<string, unknown> }>(
    'SELECT payload FROM event_outbox WHERE name = $1 ORDER BY id',
    [name],
  );
  return rows.map((r) => r.payload);
}

describe('PUT and GET /api/costs/prices', () => {
  it('stores a table that overrides the file model by model, audited, and answers the table in effect with each source', async () => {
    const before = await app.call('GET', '/api/costs/prices');
    expect(before.status).toBe(200);
    expect(before.body.models).toEqual([
      { model_id: 'both-model', source: 'file', prices: [{ input_per_million: 100, output_per_million: 100 }] },
      { model_id: 'file-model', source: 'file', prices: [{ input_per_million: 2, output_per_million: 10 }] },
    ]);
    const answer = await putPrices({
      'both-model': [
        {
          input_per_million: 3,
          output_per_million: 15,
          cached_input_per_million: 0.3,
          cache_write_per_million: 3.75,
          effective_from: '2026-11-01',
        },
        { input_per_million: 1, output_per_million: 5 },
      ],
      'db-model': { input_per_million: 4, output_per_million: 4, billing: 'subscription' },
    });
    expect(answer.models).toEqual([
      {
        model_id: 'both-model',
        source: 'database',
        prices: [
          { input_per_million: 1, output_per_million: 5 },
          {
            input_per_million: 3,
            output_per_million: 15,
            cached_input_per_million: 0.3,
            cache_write_per_million: 3.75,
            effective_from: '2026-11-01',
          },
        ],
      },
      { model_id: 'db-model', source: 'database', prices: [{ input_per_million: 4, output_per_million: 4, billing: 'subscription' }] },
      { model_id: 'file-model', source: 'file', prices: [{ input_per_million: 2, output_per_million: 10 }] },
    ]);
    expect((await app.call('GET', '/api/costs/prices')).body.models).toEqual(answer.models);
    const audit = await app.db.query<{ action: string; actor: string }>(
      `SELECT action, actor FROM audit_log WHERE entity_type = 'model_prices'`,
    );
    expect(audit.rows).toEqual([{ action: 'prices_replaced', actor: 'dashboard-operator' }]);
    expect(await outbox('prices:changed')).toEqual([{ models: 2 }]);
    // {} removes every stored price: the file's apply again
    const cleared = await putPrices({});
    expect(cleared.models.map((m) => [m.model_id, m.source])).toEqual([
      ['both-model', 'file'],
      ['file-model', 'file'],
    ]);
  });

  it('refuses a malformed table with a 400 naming the field, and keeps the stored table as it was', async () => {
    await putPrices({ kept: { input_per_million: 1, output_per_million: 1 } });
    const cases: Array<[unknown, RegExp]> = [
      [{ prices: { m: { input_per_million: -1, output_per_million: 1 } } }, /prices\.m\.0\.input_per_million/],
      [{ prices: { m: { input_per_million: 1 } } }, /output_per_million/],
      [{ prices: { m: { input_per_million: 1, output_per_million: 1, effective_from: 'yesterday' } } }, /effective_from: must be a day/],
      [
        {
          prices: {
            m: [
              { input_per_million: 1, output_per_million: 1 },
              { input_per_million: 2, output_per_million: 2 },
            ],
          },
        },
        /only one price may have no effective_from/,
      ],
      [{ prices: { m: { input_per_million: 1, output_per_million: 1, billing: 'free' } } }, /billing: must be metered or subscription/],
      [{ prices: { m: { input_per_million: 1, output_per_million: 1, surprise: 1 } } }, /surprise/],
      [{ prices: [] }, /prices/],
      [{}, /prices/],
    ];
    for (const [body, message] of cases) {
      const res = await app.call('PUT', '/api/costs/prices', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toMatch(message);
    }
    const table = await app.call('GET', '/api/costs/prices');
    expect(table.body.models.find((m: { model_id: string }) => m.model_id === 'kept')).toMatchObject({ source: 'database' });
  });

  it('never answers a random body with a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.anything(), async (body) => {
        const res = await app.call('PUT', '/api/costs/prices', { body: body as Record<string, unknown> });
        expect(res.status).toBeLessThan(500);
      }),
      { numRuns: 40 },
    );
  });
});

describe('pricing usage from the table in effect', () => {
  it('prices at the price in effect on the usage day, so a later price does not rewrite earlier usage', async () => {
    await putPrices({
      m: [
        { input_per_million: 1, output_per_million: 1 },
        { input_per_million: 2, output_per_million: 2, effective_from: '2026-11-21' },
      ],
    });
    const early = await createRun(app, type);
    await report(early.id, { model_id: 'm', input_tokens: 1_000_000 });
    clock.set('2026-11-21T00:00:01.000Z');
    const late = await createRun(app, type);
    await report(late.id, { model_id: 'm', input_tokens: 1_000_000 });
    expect(await runStatus(app, early.id)).toMatchObject({ cost_estimate: 1, cost_source: 'table', billing: 'metered' });
    expect(await runStatus(app, late.id)).toMatchObject({ cost_estimate: 2, cost_source: 'table' });
    // a report dated back to the first day is priced at that day's price
    const backdated = await createRun(app, type);
    await report(backdated.id, { model_id: 'm', input_tokens: 1_000_000, reported_at: '2026-11-20T08:00:00Z' });
    expect(await runStatus(app, backdated.id)).toMatchObject({ cost_estimate: 1 });
  });

  it('prices cache reads and cache writes at their own rates, and refuses more cache than input', async () => {
    await putPrices({ m: { input_per_million: 3, output_per_million: 15, cached_input_per_million: 0.3, cache_write_per_million: 3.75 } });
    const run = await createRun(app, type);
    const answered = await report(run.id, {
      model_id: 'm',
      input_tokens: 3_000_000,
      cached_tokens: 1_000_000,
      cache_write_tokens: 1_000_000,
    });
    expect(answered).toMatchObject({ cache_write_tokens: 1_000_000, cost_estimate: 7.05, cost_source: 'table' });
    const over = await app.call('PATCH', `/api/workflow-runs/${run.id}`, { body: { cache_write_tokens: 2_500_000 } });
    expect(over.status).toBe(400);
    expect(over.body.error).toMatch(/cache_write_tokens must not exceed input_tokens less cached_tokens/);
    const inOneBody = await app.call('PATCH', `/api/workflow-runs/${run.id}`, {
      body: { input_tokens: 10, cached_tokens: 6, cache_write_tokens: 5 },
    });
    expect(inOneBody.status).toBe(400);
    expect(inOneBody.body.error).toMatch(/cache_write_tokens/);
    expect(await runStatus(app, run.id)).toMatchObject({ cache_write_tokens: 1_000_000, cost_estimate: 7.05 });
  });

  it('keeps a cost the agent reported: a later report of tokens alone does not replace it with the table price', async () => {
    await putPrices({ m: { input_per_million: 1, output_per_million: 1 } });
    const run = await createRun(app, type);
    await report(run.id, { model_id: 'm', input_tokens: 1000, cost_estimate: 0.5 });
    await report(run.id, { input_tokens: 2_000_000 });
    expect(await runStatus(app, run.id)).toMatchObject({ cost_estimate: 0.5, cost_source: 'reported', input_tokens: 2_000_000 });
  });
});

describe('POST /api/costs/reprice', () => {
  it("reprices the window's table-priced and unpriced runs at the new prices, never an agent's own cost, with an audit row and event each", async () => {
    await putPrices({ m: { input_per_million: 1, output_per_million: 1 } });
    const tablePriced = await createRun(app, type);
    await report(tablePriced.id, { model_id: 'm', input_tokens: 1_000_000 });
    const agentPriced = await createRun(app, type);
    await report(agentPriced.id, { model_id: 'm', input_tokens: 1_000_000, cost_estimate: 9 });
    const unpriced = await createRun(app, type);
    await report(unpriced.id, { model_id: 'new-model', input_tokens: 1_000_000 });
    const outside = await createRun(app, type);
    await report(outside.id, { model_id: 'm', input_tokens: 1_000_000, reported_at: '2026-11-10T00:00:00Z' });
    expect(await runStatus(app, unpriced.id)).toMatchObject({ cost_estimate: null, cost_source: null });

    await putPrices({ m: { input_per_million: 5, output_per_million: 5 }, 'new-model': { input_per_million: 2, output_per_million: 2 } });
    const res = await app.call('POST', '/api/costs/reprice', { body: { from: '2026-11-20', to: '2026-11-21' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      from: '2026-11-20T00:00:00.000Z',
      to: '2026-11-21T00:00:00.000Z',
      examined: 2,
      changed: 2,
      reported_by_agent: 1,
      without_price: 0,
      dry_run: false,
      cost_before: 1,
      cost_after: 7,
      unpriced_before: 1,
    });
    expect(res.body.changes.map((c: { id: string }) => c.id)).toEqual([tablePriced.id, unpriced.id]);
    expect(await runStatus(app, tablePriced.id)).toMatchObject({ cost_estimate: 5, cost_source: 'table' });
    expect(await runStatus(app, unpriced.id)).toMatchObject({ cost_estimate: 2, cost_source: 'table', currency: 'USD' });
    expect(await runStatus(app, agentPriced.id)).toMatchObject({ cost_estimate: 9, cost_source: 'reported' });
    expect(await runStatus(app, outside.id)).toMatchObject({ cost_estimate: 1 });
    expect((await auditActions(app, tablePriced.id)).at(-1)).toEqual({ action: 'repriced', actor: 'dashboard-operator' });
    expect((await auditActions(app, agentPriced.id)).map((a) => a.action)).not.toContain('repriced');
    const events = await outbox('run-updated');
    expect(
      events
        .filter((e) => e.action === 'repriced')
        .map((e) => e.runId)
        .sort(),
    ).toEqual([tablePriced.id, unpriced.id].sort());

    // the same again changes nothing; a model the table no longer prices keeps its cost
    await putPrices({ 'new-model': { input_per_million: 2, output_per_million: 2 } });
    const again = await app.call('POST', '/api/costs/reprice', {
      body: { from: '2026-11-20T00:00:00Z', to: '2026-11-21T00:00:00Z', actor: 'ops-pricing' },
    });
    expect(again.body).toMatchObject({ examined: 2, changed: 0, without_price: 1 });
    expect(await runStatus(app, tablePriced.id)).toMatchObject({ cost_estimate: 5 });
  });

  it('previews a reprice with dry_run: what would change and by how much, changing nothing; the reprice then does exactly that', async () => {
    await putPrices({ m: { input_per_million: 1, output_per_million: 1 } });
    const cheap = await createRun(app, type);
    await report(cheap.id, { model_id: 'm', input_tokens: 1_000_000 });
    const big = await createRun(app, type);
    await report(big.id, { model_id: 'm', input_tokens: 3_000_000 });
    const unpriced = await createRun(app, type);
    await report(unpriced.id, { model_id: 'later-model', input_tokens: 500_000 });
    await putPrices({ m: { input_per_million: 2, output_per_million: 2 }, 'later-model': { input_per_million: 4, output_per_million: 4 } });
    const auditRows = async () =>
      (await app.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM audit_log WHERE action = 'repriced'`)).rows[0]!.n;
    const before = await auditRows();
    const events = (await outbox('run-updated')).length;

    const preview = await app.call('POST', '/api/costs/reprice', { body: { from: '2026-11-20', to: '2026-11-21', dry_run: true } });
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    expect(preview.body).toMatchObject({ dry_run: true, examined: 3, changed: 3, cost_before: 4, cost_after: 10, unpriced_before: 1 });
    // the largest change first: 3 → 6, then the unpriced run's 0 → 2, then 1 → 2
    expect(preview.body.changes).toEqual([
      {
        id: big.id,
        workflow_type: type,
        model_id: 'm',
        cost_before: 3,
        cost_after: 6,
        billing_before: 'metered',
        billing_after: 'metered',
      },
      {
        id: unpriced.id,
        workflow_type: type,
        model_id: 'later-model',
        cost_before: null,
        cost_after: 2,
        billing_before: 'metered',
        billing_after: 'metered',
      },
      {
        id: cheap.id,
        workflow_type: type,
        model_id: 'm',
        cost_before: 1,
        cost_after: 2,
        billing_before: 'metered',
        billing_after: 'metered',
      },
    ]);
    expect(await runStatus(app, big.id)).toMatchObject({ cost_estimate: 3 });
    expect(await runStatus(app, unpriced.id)).toMatchObject({ cost_estimate: null, cost_source: null });
    expect(await auditRows()).toBe(before);
    expect((await outbox('run-updated')).length).toBe(events);

    const applied = await app.call('POST', '/api/costs/reprice', { body: { from: '2026-11-20', to: '2026-11-21' } });
    expect(applied.body).toMatchObject({ dry_run: false, examined: 3, changed: 3, cost_before: 4, cost_after: 10, unpriced_before: 1 });
    expect(applied.body.changes).toEqual(preview.body.changes);
    expect(await runStatus(app, big.id)).toMatchObject({ cost_estimate: 6, cost_source: 'table' });
    expect(await auditRows()).toBe(before + 3);
    const nothingLeft = await app.call('POST', '/api/costs/reprice', { body: { from: '2026-11-20', to: '2026-11-21', dry_run: true } });
    expect(nothingLeft.body).toMatchObject({ examined: 3, changed: 0, cost_before: 0, cost_after: 0, changes: [] });
  });

  it('refuses a window that is not one with a 400 naming the field, and changes nothing', async () => {
    const repriced = async () => (await app.db.query(`SELECT 1 FROM audit_log WHERE action = 'repriced'`)).rows.length;
    const before = await repriced();
    for (const [body, message] of [
      [{ from: '2026-11-21', to: '2026-11-20' }, /to: must be after from/],
      [{ from: '2026-11-20', to: '2026-11-20' }, /to: must be after from/],
      [{ from: 'last week', to: '2026-11-20' }, /from: must be a day/],
      [{ to: '2026-11-20' }, /from/],
      [{ from: '2026-11-20', to: '2026-11-21', extra: true }, /extra/],
      [{ from: '2026-11-20', to: '2026-11-21', dry_run: 'yes' }, /dry_run: must be true or false/],
    ] as const) {
      const res = await app.call('POST', '/api/costs/reprice', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toMatch(message);
    }
    expect(await repriced()).toBe(before);
  });
});

describe('billing modes', () => {
  it("keeps a subscription agent's runs at their list price as a shadow cost: out of billed totals, answered as subscription_cost", async () => {
    const billing = await app.call('PUT', '/api/agents/writer/billing', { body: { billing: 'subscription' } });
    expect(billing.status, JSON.stringify(billing.body)).toBe(200);
    expect(billing.body).toEqual({ agent_id: 'writer', billing: 'subscription' });
    expect((await auditActions(app, 'writer')).map((a) => a.action)).toContain('billing_updated');
    await putPrices({ m: { input_per_million: 1, output_per_million: 1 } });
    const shadow = await createRun(app, type, { owner_agent_id: 'writer' });
    await report(shadow.id, { model_id: 'm', input_tokens: 2_000_000 });
    const metered = await createRun(app, type, { owner_agent_id: 'editor' });
    await report(metered.id, { model_id: 'm', input_tokens: 1_000_000 });
    expect(await runStatus(app, shadow.id)).toMatchObject({ cost_estimate: 2, billing: 'subscription' });
    expect(await runStatus(app, metered.id)).toMatchObject({ cost_estimate: 1, billing: 'metered' });

    const summary = await app.call('GET', '/api/costs/summary?days=1');
    expect(summary.body).toMatchObject({ total_window: 1, subscription_cost: 2, today: { cost: 1, runs: 2 } });
    expect(summary.body.top_run.id).toBe(metered.id);
    const rollup = await app.call('GET', '/api/costs/rollup?days=1&group_by=agent');
    expect(rollup.body).toMatchObject({ total_window: 1, subscription_cost: 2 });
    expect(rollup.body.groups.find((g: { key: string }) => g.key === 'writer')).toMatchObject({ cost: 0, runs: 1 });
  });

  it('marks runs of a model priced as subscription, unless the agent says otherwise', async () => {
    await putPrices({ plan: { input_per_million: 1, output_per_million: 1, billing: 'subscription' } });
    const byModel = await createRun(app, type, { owner_agent_id: 'writer' });
    await report(byModel.id, { model_id: 'plan', input_tokens: 1_000_000 });
    expect(await runStatus(app, byModel.id)).toMatchObject({ billing: 'subscription', cost_estimate: 1 });
    await app.call('PUT', '/api/agents/editor/billing', { body: { billing: 'metered' } });
    const byAgent = await createRun(app, type, { owner_agent_id: 'editor' });
    await report(byAgent.id, { model_id: 'plan', input_tokens: 1_000_000 });
    expect(await runStatus(app, byAgent.id)).toMatchObject({ billing: 'metered' });
  });

  it('counts subscription runs in a budget of basis list and not in one of basis billed (the default); tokens count in both', async () => {
    await app.call('PUT', '/api/agents/writer/billing', { body: { billing: 'subscription' } });
    await putPrices({ m: { input_per_million: 1, output_per_million: 1 } });
    const billed = await app.call('POST', '/api/budgets', {
      body: { name: 'billed', scope: 'agent', scope_id: 'writer', period: 'daily', cap_usd: 1, action_on_exceed: 'warn' },
    });
    const list = await app.call('POST', '/api/budgets', {
      body: { name: 'list', scope: 'agent', scope_id: 'writer', period: 'weekly', cap_usd: 1, action_on_exceed: 'warn', basis: 'list' },
    });
    expect(billed.body.budget.basis).toBe('billed');
    expect(list.body.budget.basis).toBe('list');
    const run = await createRun(app, type, { owner_agent_id: 'writer' });
    await report(run.id, { model_id: 'm', input_tokens: 1_500_000 });
    const budgets = (await app.call('GET', '/api/budgets')).body.budgets as Array<{
      name: string;
      current_spend: { usd: number; tokens: number };
      status: string;
    }>;
    expect(budgets.find((b) => b.name === 'billed')).toMatchObject({ current_spend: { usd: 0, tokens: 1_500_000 }, status: 'under' });
    expect(budgets.find((b) => b.name === 'list')).toMatchObject({ current_spend: { usd: 1.5, tokens: 1_500_000 }, status: 'warned' });
    const patched = await app.call('PATCH', `/api/budgets/${billed.body.budget.id}`, { body: { basis: 'list' } });
    expect(patched.status).toBe(200);
    expect(patched.body.budget).toMatchObject({ basis: 'list', status: 'warned' });
    const bad = await app.call('POST', '/api/budgets', {
      body: { name: 'x', scope: 'fleet', period: 'daily', cap_usd: 1, action_on_exceed: 'warn', basis: 'shadow' },
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toMatch(/basis/);
  });

  it('refuses a billing mode it does not know with a 400 naming the field', async () => {
    for (const body of [{ billing: 'free' }, {}, { billing: 'metered', extra: 1 }]) {
      const res = await app.call('PUT', '/api/agents/writer/billing', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toMatch(/billing|extra/);
    }
    const cleared = await app.call('PUT', '/api/agents/writer/billing', { body: { billing: null } });
    expect(cleared.body).toEqual({ agent_id: 'writer', billing: null });
  });
});

describe('budget-updated', () => {
  it("is published when a budget's status changes (breach, recovery), once, and not for an unchanged evaluation", async () => {
    const created = await app.call('POST', '/api/budgets', {
      body: { name: 'cap', scope: 'agent', scope_id: 'writer', period: 'daily', cap_usd: 1, action_on_exceed: 'pause_new_runs' },
    });
    const id = created.body.budget.id as string;
    const { rows: start } = await app.db.query<{ n: string }>('SELECT coalesce(max(id), 0) AS n FROM event_outbox');
    const since = async () =>
      (
        await app.db.query<{ payload: Record<string, unknown> }>(
          `SELECT payload FROM event_outbox WHERE name = 'budget-updated' AND id > $1 ORDER BY id`,
          [start[0]!.n],
        )
      ).rows.map((r) => r.payload);
    const { id: runId, session } = await claimedRun(app, type);
    await app.call('POST', `/api/workflow-runs/${runId}/heartbeat`, { body: { session_id: session, cost_estimate: 1.2 } });
    await app.call('GET', '/api/budgets');
    await app.call('GET', '/api/budgets');
    expect(await since()).toEqual([
      {
        budgetId: id,
        name: 'cap',
        event_kind: 'paused',
        status: 'breached',
        period_key: '2026-11-20',
        pct_of_cap: 120,
        action_on_exceed: 'pause_new_runs',
      },
    ]);
    await app.call('PATCH', `/api/budgets/${id}`, { body: { cap_usd: 5 } });
    await app.call('GET', '/api/budgets');
    expect((await since()).map((e) => [e.event_kind, e.status])).toEqual([
      ['paused', 'breached'],
      ['recovered', 'under'],
    ]);
  });
});
