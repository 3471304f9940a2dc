/// <reference lib="dom" />
// (the DOM types: page.evaluate callbacks run in the browser)
import { describe, expect, it } from 'vitest';
import { expectNoSeriousAxeViolations, scrollsSideways, useConsole } from '../support/console-browser';

/**
 * The Agents screen in a real Chromium: the roster's in-place actions change the server, a change
 * made elsewhere shows live, and a token is shown once (copied through the clipboard), listed without
 * its secret, and revoked.
 */
const ui = useConsole();
let made = 0;
const unique = (prefix: string) => `${prefix}-${++made}-${Date.now().toString(36)}`;

async function heartbeat(agent: string) {
  expect((await ui.call('POST', '/api/agents/heartbeat', { agent_name: agent, status: 'online' })).status).toBe(200);
}

async function limits(agent: string) {
  const res = await ui.call('GET', `/api/agents/${agent}/limits`);
  expect(res.status).toBe(200);
  return res.body as { max_concurrent_runs: number | null; dispatch_paused_until: string | null; live_runs: number };
}

const rosterEntry = async (agent: string) =>
  ((await ui.call('GET', '/api/agents/roster')).body.agents as Array<{ agent_id: string; billing: string | null }>).find(
    (a) => a.agent_id === agent,
  );

describe('the Agents screen', () => {
  it('resumes a paused agent’s dispatch, sets its cap and its billing in place, and follows a change made elsewhere', async () => {
    const agent = unique('paused-agent');
    await heartbeat(agent);
    await ui.app.db.query(
      `INSERT INTO agent_dispatch_controls (agent_id, dispatch_paused_until, pause_reason, created_at, updated_at) VALUES ($1, now() + interval '1 hour', 'provider quota exhausted', now(), now())`,
      [agent],
    );
    const page = await ui.newPage();
    await page.goto('/agents');
    const card = page.getByRole('listitem', { name: agent });
    await expect.poll(() => card.textContent()).toContain('provider quota exhausted');
    expect(await card.textContent()).toContain('Online');

    await card.getByRole('button', { name: 'Resume dispatch' }).click();
    await expect.poll(async () => (await limits(agent)).dispatch_paused_until).toBeNull();
    await expect.poll(() => card.getByRole('button', { name: 'Resume dispatch' }).count()).toBe(0);
    expect(await card.textContent()).toContain('Flowing');

    await card.getByLabel('Cap on live runs').fill('4');
    await card.getByRole('button', { name: 'Set cap' }).click();
    await expect.poll(async () => (await limits(agent)).max_concurrent_runs).toBe(4);
    await expect.poll(() => card.textContent()).toContain('0 of 4');

    await card.getByRole('combobox', { name: /^Billing/ }).selectOption('subscription');
    await card.getByRole('button', { name: 'Set billing' }).click();
    await expect.poll(async () => (await rosterEntry(agent))?.billing).toBe('subscription');

    // another client changes the cap: the open page shows it through the stream, without a reload
    expect((await ui.call('PUT', `/api/agents/${agent}/limits`, { max_concurrent_runs: 7 })).status).toBe(200);
    await expect.poll(() => card.textContent()).toContain('0 of 7');
    expect(await card.getByLabel('Cap on live runs').inputValue()).toBe('7');
    await expectNoSeriousAxeViolations(page);
  });

  it('creates a token shown once with its copy button and MCP line, never shown again, then revokes it after asking once', async () => {
    const agent = unique('token-agent');
    const label = unique('deploy bot');
    const page = await ui.newPage();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(ui.url()).origin });
    await page.goto('/agents');
    await page.getByRole('heading', { level: 2, name: 'Agent tokens' }).waitFor();
    await page.getByRole('button', { name: 'Create token' }).click();
    const form = page.getByRole('dialog', { name: 'Create token' });
    await form.getByLabel('Agent', { exact: true }).fill(agent);
    await form.getByLabel('Label (optional)').fill(label);
    await form.getByRole('checkbox', { name: /^read/ }).check();
    await form.getByRole('button', { name: 'Create token' }).click();

    const shown = page.getByRole('dialog', { name: 'Token created' });
    await shown.waitFor();
    const token = (await shown.locator('code').first().textContent())!;
    expect(token).toMatch(/^fta_[A-Za-z0-9_-]{43}$/);
    await shown.getByRole('button', { name: 'Copy token' }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(token);
    expect(await shown.locator('code').nth(1).textContent()).toBe(
      `claude mcp add fleet-dashboard -e DASHBOARD_AUTH_TOKEN=${token} -e TASK_SERVER_URL=${new URL(ui.url()).origin} -e RUNTIME_MCP_MUTATIONS=1 -- npx -y fleet-task-server mcp`,
    );
    // the token works, as its agent
    const self = await fetch(`${ui.url()}/api/auth/self`, { headers: { authorization: `Bearer ${token}` } });
    expect((await self.json()).actor).toBe(agent);

    await shown.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    const item = page.getByRole('listitem', { name: label });
    await expect.poll(() => item.textContent()).toContain('agent, read');
    // never shown again: not on the page, not in the URL, not in the browser's storage
    expect(await page.content()).not.toContain(token);
    expect(page.url()).not.toContain(token);
    expect(await page.evaluate(() => JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage }))).not.toContain(token);
    await page.reload();
    await page.getByRole('listitem', { name: label }).waitFor();
    expect(await page.content()).not.toContain(token);

    const asked: string[] = [];
    page.once('dialog', (dialog) => {
      asked.push(dialog.message());
      void dialog.accept();
    });
    await page.getByRole('listitem', { name: label }).getByRole('button', { name: 'Revoke' }).click();
    await expect
      .poll(
        async () =>
          ((await ui.call('GET', '/api/agent-tokens')).body.tokens as Array<{ label: string; status: string }>).find(
            (t) => t.label === label,
          )?.status,
      )
      .toBe('revoked');
    expect(asked).toEqual([expect.stringContaining(label)]);
    await expect.poll(() => page.getByRole('listitem', { name: label }).getByRole('button', { name: 'Revoke' }).count()).toBe(0);
    // in effect at once: the next request with it is refused
    expect((await fetch(`${ui.url()}/api/tasks`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
  });

  it('keeps a token when the operator declines the question', async () => {
    const label = unique('kept token');
    expect((await ui.call('POST', '/api/agent-tokens', { agent_id: unique('keeper'), label })).status).toBe(201);
    const page = await ui.newPage();
    await page.goto('/agents');
    page.once('dialog', (dialog) => void dialog.dismiss());
    await page.getByRole('listitem', { name: label }).getByRole('button', { name: 'Revoke' }).click();
    // nothing was sent: the token stays active
    await expect.poll(() => page.getByRole('listitem', { name: label }).getByRole('button', { name: 'Revoke' }).isEnabled()).toBe(true);
    expect(
      ((await ui.call('GET', '/api/agent-tokens')).body.tokens as Array<{ label: string; status: string }>).find((t) => t.label === label)
        ?.status,
    ).toBe('active');
  });

  it('has no serious axe violation and no sideways scrolling at 390×844, light and dark, with the token dialog open', async () => {
    await heartbeat(unique('phone-agent'));
    expect((await ui.call('POST', '/api/agent-tokens', { agent_id: unique('phone-agent'), label: unique('phone token') })).status).toBe(
      201,
    );
    for (const colorScheme of ['light', 'dark'] as const) {
      const page = await ui.newPage({ viewport: { width: 390, height: 844 }, colorScheme });
      await page.goto('/agents');
      await page.getByRole('list', { name: 'Roster' }).waitFor();
      await page.getByRole('list', { name: 'Agent tokens' }).waitFor();
      expect(await scrollsSideways(page)).toBe(false);
      await expectNoSeriousAxeViolations(page);
      await page.getByRole('button', { name: 'Create token' }).click();
      await page.getByRole('dialog', { name: 'Create token' }).waitFor();
      expect(await scrollsSideways(page)).toBe(false);
      await expectNoSeriousAxeViolations(page);
    }
  });
});
