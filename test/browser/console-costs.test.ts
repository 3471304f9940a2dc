/// <reference lib="dom" />
// (the DOM types: page.evaluate callbacks run in the browser)
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectNoSeriousAxeViolations, scrollsSideways, useConsole } from '../support/console-browser';

/** Costs: budgets created and edited in place with their burn-downs, spend by group with unpriced runs, the price table, a reprice previewed then applied. */
const ui = useConsole();
let unpricedRun: string;

/** Every CSP violation the page reports, collected from before its own scripts run. */
async function watchCsp(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript(
    `document.addEventListener('securitypolicyviolation', (e) => (window.__csp ||= []).push(e.violatedDirective + ' ' + e.blockedURI))`,
  );
  return () => page.evaluate(() => (window as unknown as { __csp?: string[] }).__csp ?? []);
}

const budgetRegion = (page: Page, name: string) => page.getByRole('region', { name, exact: true });

/** The burn-down's figures as the hidden table under its chart gives them: a row per point, by column header. */
async function figures(page: Page, name: string): Promise<Array<Record<string, string>>> {
  return budgetRegion(page, name)
    .getByRole('table', { name: 'Burn-down figures', includeHidden: true })
    .evaluate((table) => {
      const heads = Array.from(table.querySelectorAll('thead th')).map((th) => th.textContent ?? '');
      return Array.from(table.querySelectorAll('tbody tr')).map((tr) =>
        Object.fromEntries(Array.from(tr.children).map((cell, i) => [heads[i]!, cell.textContent ?? ''])),
      );
    });
}

async function openCosts(page: Page, query = '') {
  await page.goto(`/costs${query}`);
  await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Costs');
}

beforeAll(async () => {
  expect((await ui.call('PUT', '/api/costs/prices', { prices: { m: { input_per_million: 1, output_per_million: 1 } } })).status).toBe(200);
  // three runs the table priced at $1 each this month, and one whose model has no price
  await ui.app.db.query(
    `INSERT INTO workflow_runs (id, workflow_type, status, owner_agent_id, model_id, input_tokens, output_tokens, cost_estimate, cost_source, billing, currency, reported_at)
     SELECT gen_random_uuid(), 'research', 'completed', 'writer', 'm', 1000000, 0, 1, 'table', 'metered', 'USD', now() - g * interval '1 minute' FROM generate_series(1, 3) g`,
  );
  const { rows } = await ui.app.db.query<{ id: string }>(
    `INSERT INTO workflow_runs (id, workflow_type, status, owner_agent_id, model_id, input_tokens, output_tokens, reported_at)
     VALUES (gen_random_uuid(), 'research', 'completed', 'writer', 'unknown-model', 1000, 10, now()) RETURNING id`,
  );
  unpricedRun = rows[0]!.id;
});

describe('the Costs screen', () => {
  it('creates a budget from its form and draws its burn-down with its line, spend to date and forecast, under the CSP, with no serious axe violation', async () => {
    const page = await ui.newPage();
    const violations = await watchCsp(page);
    await openCosts(page);
    const form = page.getByRole('form', { name: 'New budget' });
    await form.getByLabel('Name').fill('Fleet this month');
    await form.getByLabel('Cap', { exact: true }).fill('100');
    await form.getByLabel('When spend reaches the cap').selectOption('hard_stop');
    await form.getByRole('button', { name: 'Create budget' }).click();

    const region = budgetRegion(page, 'Fleet this month');
    await expect.poll(() => region.count()).toBe(1);
    // uPlot drew into the section
    await expect.poll(() => region.locator('canvas').count()).toBeGreaterThan(0);
    const api = (await ui.call('GET', '/api/budgets/burn-down')).body.burn_downs[0];
    expect(api).toMatchObject({ spent: 3, line: { action: 'hard_stop', amount: 100 } });
    const rows = await figures(page, 'Fleet this month');
    expect(rows[0]).toMatchObject({ When: 'Period start', 'Billed spend': '$0.00' });
    const now = rows.find((r) => r.When!.endsWith('(now)'))!;
    expect(now).toMatchObject({ 'Billed spend': '$3.00', Forecast: '$3.00', 'Hard-stop line': '$100.00' });
    const end = rows.at(-1)!;
    expect(end).toMatchObject({ When: 'Period end', 'Billed spend': '', 'Hard-stop line': '$100.00' });
    expect(end.Forecast).toBe(new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(api.forecast.at_end));
    // one row per day of the period so far, between the start and the end
    expect(rows.length).toBe(api.days.length + 2);
    // under its line: not marked
    expect(await region.locator('.line-mark').count()).toBe(0);
    await expectNoSeriousAxeViolations(page);
    expect(await violations()).toEqual([]);
  });

  it('edits a budget in place: a cap under its spend marks it hard-stopped, live from the server', async () => {
    const page = await ui.newPage();
    await openCosts(page);
    const region = budgetRegion(page, 'Fleet this month');
    await region.getByRole('button', { name: 'Edit Fleet this month' }).click();
    const edit = region.getByRole('form', { name: 'Edit Fleet this month' });
    await edit.getByLabel('Cap (USD)').fill('2');
    await edit.getByRole('button', { name: 'Save Fleet this month' }).click();
    await expect.poll(() => region.getByText('Hard-stopped: new runs are stopped and live ones cancelled').count()).toBe(1);
    const now = (await figures(page, 'Fleet this month')).find((r) => r.When!.endsWith('(now)'))!;
    expect(now['Hard-stop line']).toBe('$2.00');
    expect((await ui.call('GET', '/api/budgets')).body.budgets[0]).toMatchObject({ cap_usd: 2, status: 'breached' });
    // a change made elsewhere shows without a reload (the budgets topic of the stream)
    const id = (await ui.call('GET', '/api/budgets')).body.budgets[0].id;
    expect((await ui.call('PATCH', `/api/budgets/${id}`, { cap_usd: 50 })).status).toBe(200);
    await expect.poll(() => region.getByText(/^Hard-stopped/).count()).toBe(0);
  });

  it('shows spend by the grouping in the URL as a table, and the unpriced runs as links to their runs, never as $0', async () => {
    const page = await ui.newPage({ viewport: { width: 390, height: 844 } });
    await openCosts(page, '?group=workflow_type&days=30');
    const table = page.getByRole('table', { name: 'Spend by workflow type, last 30 days' });
    await expect.poll(() => table.getByRole('row').count()).toBe(2);
    expect(await table.getByRole('row').nth(1).textContent()).toContain('research');
    expect(await table.getByRole('row').nth(1).textContent()).toContain('$3.00');
    await expect.poll(() => page.getByRole('heading', { name: '1 unpriced run' }).count()).toBe(1);
    expect(await page.getByRole('link', { name: `research run ${unpricedRun.slice(0, 8)}` }).getAttribute('href')).toBe(
      `/runs/${unpricedRun}`,
    );
    await page.getByLabel('Group by').selectOption('agent');
    await expect.poll(() => new URL(page.url()).searchParams.get('group')).toBe('agent');
    await expect.poll(() => page.getByRole('table', { name: 'Spend by agent, last 30 days' }).count()).toBe(1);
    expect(await scrollsSideways(page)).toBe(false);
    await expectNoSeriousAxeViolations(page);
  });

  it('edits the price table, previews a reprice of the window (what changes, by how much), then applies it', async () => {
    const page = await ui.newPage({ colorScheme: 'dark' });
    await openCosts(page);
    const input = page.getByLabel('Input $/M of m, price 1', { exact: true });
    await expect.poll(() => input.inputValue()).toBe('1');
    await input.fill('3');
    await page.getByRole('button', { name: 'Save prices' }).click();
    await expect
      .poll(() =>
        page
          .getByRole('status')
          .filter({ hasText: /^Saved/ })
          .count(),
      )
      .toBe(1);
    expect(
      (await ui.call('GET', '/api/costs/prices')).body.models.find((m: { model_id: string }) => m.model_id === 'm').prices[0],
    ).toMatchObject({ input_per_million: 3 });

    await page.getByRole('button', { name: 'Preview reprice' }).click();
    const preview = page.getByRole('region', { name: 'Reprice preview' });
    await expect.poll(() => preview.count()).toBe(1);
    expect(await preview.textContent()).toContain('3 of 4 runs would change: $3.00 → $9.00 (+$6.00)');
    expect(await preview.getByRole('table', { name: 'Largest changes' }).getByRole('row').count()).toBe(4);
    // a preview changes nothing
    const costs = async () =>
      (await ui.app.db.query<{ c: number }>(`SELECT cost_estimate AS c FROM workflow_runs WHERE model_id = 'm' ORDER BY id`)).rows.map(
        (r) => r.c,
      );
    expect(await costs()).toEqual([1, 1, 1]);
    await expectNoSeriousAxeViolations(page);

    await preview.getByRole('button', { name: 'Apply reprice' }).click();
    await expect
      .poll(() =>
        page
          .getByRole('status')
          .filter({ hasText: /^Repriced 3 runs/ })
          .count(),
      )
      .toBe(1);
    expect(await costs()).toEqual([3, 3, 3]);
    // the burn-down follows
    await expect
      .poll(async () => (await figures(page, 'Fleet this month')).find((r) => r.When!.endsWith('(now)'))?.['Billed spend'])
      .toBe('$9.00');
  });

  it('draws what live runs reserve as a band above spend, from now to the period’s end, following the stream', async () => {
    const page = await ui.newPage();
    await openCosts(page);
    const region = budgetRegion(page, 'Fleet this month');
    await expect.poll(() => region.locator('canvas').count()).toBeGreaterThan(0);
    // a live run whose route expects $2 and which has reported nothing
    await ui.app.db.query(
      `INSERT INTO workflow_agent_routing (workflow_type, agent_id, expected_cost_usd) VALUES ('live-costs', 'writer', 2)`,
    );
    await ui.app.db.query(
      `INSERT INTO workflow_runs (id, workflow_type, status, owner_agent_id, started_at) VALUES (gen_random_uuid(), 'live-costs', 'running', 'writer', now())`,
    );
    // nothing tells the page of a row written behind the API: the budget's own change does
    const id = (await ui.call('GET', '/api/budgets')).body.budgets[0].id;
    expect((await ui.call('PATCH', `/api/budgets/${id}`, { cap_usd: 60 })).status).toBe(200);
    const reservedColumn = 'Spend and live runs’ reservations';
    await expect.poll(async () => (await figures(page, 'Fleet this month')).at(-1)?.[reservedColumn]).toBe('$11.00');
    const rows = await figures(page, 'Fleet this month');
    expect(rows.find((r) => r.When!.endsWith('(now)'))).toMatchObject({ 'Billed spend': '$9.00', [reservedColumn]: '$11.00' });
    expect(rows[0]![reservedColumn]).toBe('');
    expect(await region.getByRole('list', { name: 'Key' }).getByRole('listitem').allTextContents()).toEqual([
      'Billed spend',
      reservedColumn,
      'Forecast',
      'Hard-stop line',
    ]);
    expect(await region.getByText('Reserved by live runs').locator('..').textContent()).toContain('$2.00');
  });
});
