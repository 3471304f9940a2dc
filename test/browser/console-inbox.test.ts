/// <reference lib="dom" />
// (the DOM types: page.evaluate callbacks run in the browser)
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectNoSeriousAxeViolations, scrollsSideways, useConsole } from '../support/console-browser';

/**
 * The Inbox in a real Chromium: each action resolves its item on the server and the item leaves the
 * list; a change made by another client removes it live. States are arranged as
 * test/handlers/inbox.test.ts produces each kind, through the API where a route makes them.
 */
const ui = useConsole();
let projectId: string;
let made = 0;
const unique = (prefix: string) => `${prefix}-${++made}-${Date.now().toString(36)}`;

beforeAll(async () => {
  projectId = (await ui.call('POST', '/api/projects', { name: 'Inbox screen' })).body.id;
});

type Item = { id: string; title: string; kind: string; severity: string; actions: string[] } & Record<string, unknown>;

async function inboxItems(): Promise<Item[]> {
  const res = await ui.call('GET', '/api/inbox?limit=500');
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.items;
}
/** The item with this id as the server lists it now (undefined once resolved). */
const serverItem = async (id: string) => (await inboxItems()).find((i) => i.id === id);

async function waiting(id: string): Promise<Item> {
  const item = await serverItem(id);
  expect(item, `${id} waits`).toBeDefined();
  return item!;
}

async function task(title: string, fields: Record<string, unknown> = {}): Promise<string> {
  const res = await ui.call('POST', '/api/tasks', { project_id: projectId, title, ...fields });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

async function template(): Promise<string> {
  const name = unique('inbox-wf');
  const res = await ui.call('POST', '/api/workflow-templates', { name, steps: ['draft', 'review'] });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return name;
}

/** A run held by writer's session asks for an approval of its review step (POST /api/workflow-runs/:id/approvals). */
async function pendingApproval(): Promise<Item & { approval_id: string }> {
  const type = await template();
  const run = await ui.call('POST', '/api/workflow-runs', { workflow_type: type });
  expect(run.status, JSON.stringify(run.body)).toBe(201);
  const session = `agent:writer:subagent:${unique('s')}`;
  // the dispatcher is off (DISPATCHER_INTERVAL_MS=0): the run is put in writer's hands directly
  await ui.app.db.query(
    `UPDATE workflow_runs SET status = 'running', owner_agent_id = 'writer', claim_session_id = $2, claimed_at = now(), started_at = now(), heartbeat_at = now() WHERE id = $1`,
    [run.body.id, session],
  );
  const opened = await ui.call('POST', `/api/workflow-runs/${run.body.id}/approvals`, { session_id: session, step_name: 'review' });
  expect(opened.status, JSON.stringify(opened.body)).toBe(201);
  return (await waiting(`approval:${opened.body.approval.id}`)) as Item & { approval_id: string };
}

async function timedOutRun(): Promise<Item> {
  const type = await template();
  const taskId = await task(unique('flaky job'));
  const { rows } = await ui.app.db.query<{ id: string }>(
    `INSERT INTO workflow_runs (id, workflow_type, owner_agent_id, task_id, status, last_error, finished_at)
     VALUES (gen_random_uuid(), $1, 'writer', $2, 'timed_out', 'no answer in 30 min', now()) RETURNING id`,
    [type, taskId],
  );
  return waiting(`failed_run:${rows[0]!.id}`);
}

/** A fleet budget that holds runs once $5 is spent, and $6 spent today (the fleet has one active daily budget: an earlier test's is turned off first). */
async function hardStoppedBudget(): Promise<Item> {
  const body = { name: unique('Daily spend'), scope: 'fleet', period: 'daily', cap_usd: 5, action_on_exceed: 'hard_stop' };
  let created = await ui.call('POST', '/api/budgets', body);
  if (created.status === 409) {
    expect((await ui.call('PATCH', `/api/budgets/${created.body.existing_budget_id}`, { active: false })).status).toBe(200);
    created = await ui.call('POST', '/api/budgets', body);
  }
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const budgetId = created.body.budget?.id ?? created.body.id;
  await ui.app.db.query(
    `INSERT INTO workflow_runs (id, workflow_type, owner_agent_id, status, cost_estimate, reported_at) VALUES (gen_random_uuid(), $1, 'writer', 'completed', 6, now())`,
    [await template()],
  );
  return waiting(`budget:${budgetId}`);
}

async function pausedAgent(): Promise<Item> {
  const agent = unique('quota-hit');
  await ui.app.db.query(
    `INSERT INTO agent_dispatch_controls (agent_id, dispatch_paused_until, pause_reason) VALUES ($1, now() + interval '15 minutes', 'provider quota exhausted')`,
    [agent],
  );
  return waiting(`agent_paused:${agent}`);
}

/** A claim taken through the API whose lease then lapsed (moved into the past: the server's clock is real). */
async function lapsedClaim(): Promise<Item> {
  const taskId = await task(unique('claimed then forgotten'), { status: 'ready' });
  const claim = await ui.call('POST', '/api/agent/claim', { task_id: taskId, agent_name: 'forgetful', lease_seconds: 60 });
  expect(claim.status, JSON.stringify(claim.body)).toBe(200);
  await ui.app.db.query(`UPDATE tasks SET lease_expires_at = now() - interval '1 minute' WHERE id = $1`, [taskId]);
  return waiting(`expired_claim:${taskId}`);
}

async function openInbox(page: Page): Promise<void> {
  await page.goto('/');
  await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Inbox');
}

const list = (page: Page) => page.getByRole('list', { name: 'Waiting for you' });
const itemOn = (page: Page, item: Item) => list(page).getByRole('listitem', { name: item.title, exact: true });

async function shown(page: Page, item: Item) {
  const li = itemOn(page, item);
  await expect.poll(() => li.count()).toBe(1);
  return li;
}

/** The item left the page and the server no longer lists it; a reload does not bring it back. */
async function resolved(page: Page, item: Item): Promise<void> {
  await expect.poll(() => itemOn(page, item).count()).toBe(0);
  expect(await serverItem(item.id)).toBeUndefined();
  await page.reload();
  await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Inbox');
  await expect
    .poll(() =>
      page
        .getByText(/^Nothing needs you/)
        .or(list(page))
        .count(),
    )
    .toBeGreaterThan(0);
  expect(await itemOn(page, item).count()).toBe(0);
}

describe('the Inbox: each action resolves its item', () => {
  it('Approve, with a note, approves the pending approval', async () => {
    const item = await pendingApproval();
    const page = await ui.newPage();
    await openInbox(page);
    const li = await shown(page, item);
    expect(await li.textContent()).toContain('Approving executes');
    await li.getByLabel('Note (optional)').fill('looks right');
    await li.getByRole('button', { name: 'Approve' }).click();
    await resolved(page, item);
    const { rows } = await ui.app.db.query('SELECT status, note FROM workflow_approvals WHERE id = $1', [item.approval_id]);
    expect(rows).toEqual([{ status: 'approved', note: 'looks right' }]);
  });

  it('Reject rejects it', async () => {
    const item = await pendingApproval();
    const page = await ui.newPage();
    await openInbox(page);
    await (await shown(page, item)).getByRole('button', { name: 'Reject' }).click();
    await resolved(page, item);
    const { rows } = await ui.app.db.query('SELECT status, note FROM workflow_approvals WHERE id = $1', [item.approval_id]);
    expect(rows).toEqual([{ status: 'rejected', note: null }]);
  });

  it('Retry puts a timed-out run back in the queue', async () => {
    const item = await timedOutRun();
    const page = await ui.newPage();
    await openInbox(page);
    await (await shown(page, item)).getByRole('button', { name: 'Retry' }).click();
    await resolved(page, item);
    const { rows } = await ui.app.db.query('SELECT status FROM workflow_runs WHERE id = $1', [item.run_id]);
    expect(rows).toEqual([{ status: 'queued' }]);
  });

  it('Resume dispatch lifts an agent’s quota pause', async () => {
    const item = await pausedAgent();
    const page = await ui.newPage();
    await openInbox(page);
    await (await shown(page, item)).getByRole('button', { name: 'Resume dispatch' }).click();
    await resolved(page, item);
  });

  it('Raise cap edits the budget’s cap in place', async () => {
    const item = await hardStoppedBudget();
    const page = await ui.newPage();
    await openInbox(page);
    const li = await shown(page, item);
    await li.getByRole('button', { name: 'Raise cap' }).click();
    const form = li.getByRole('form', { name: 'Raise cap' });
    expect(await form.getByLabel('New cap (USD)').inputValue()).toBe('5');
    await form.getByLabel('New cap (USD)').fill('500');
    await form.getByRole('button', { name: 'Save cap' }).click();
    await resolved(page, item);
    const { rows } = await ui.app.db.query('SELECT cap_usd::float AS cap_usd FROM budgets WHERE id = $1', [item.budget_id]);
    expect(rows).toEqual([{ cap_usd: 500 }]);
  });

  it('Resume stops a hard-stopped budget holding runs: it keeps watching and only warns, with no Resume left', async () => {
    const item = await hardStoppedBudget();
    expect(item).toMatchObject({ state: 'hard_stopped', actions: ['raise_cap', 'resume'] });
    const page = await ui.newPage();
    await openInbox(page);
    await (await shown(page, item)).getByRole('button', { name: 'Resume' }).click();
    // the budget is still over its cap, so it stays listed, now as warned
    const warned = { ...item, title: item.title.replace('hard stopped', 'warned') };
    await expect.poll(() => itemOn(page, warned).count()).toBe(1);
    expect(await itemOn(page, warned).getByRole('button', { name: 'Resume' }).count()).toBe(0);
    expect(await serverItem(item.id)).toMatchObject({ state: 'warned', severity: 'medium', actions: ['raise_cap'] });
    const { rows } = await ui.app.db.query('SELECT action_on_exceed, active FROM budgets WHERE id = $1', [item.budget_id]);
    expect(rows).toEqual([{ action_on_exceed: 'warn', active: true }]);
  });

  it('Repair shows the dry run first, changes nothing until confirmed, then releases a lapsed claim', async () => {
    const item = await lapsedClaim();
    const page = await ui.newPage();
    await openInbox(page);
    const li = await shown(page, item);
    await li.getByRole('button', { name: 'Repair' }).click();
    const preview = li.getByRole('group', { name: 'Repair preview' });
    await expect.poll(() => preview.textContent()).toContain('The dry run would repair 1: 1 × expired_task_lease.');
    expect(await serverItem(item.id)).toBeDefined();
    await preview.getByRole('button', { name: 'Repair now' }).click();
    await resolved(page, item);
    const { rows } = await ui.app.db.query('SELECT locked_by FROM tasks WHERE id = $1', [item.task_id]);
    expect(rows).toEqual([{ locked_by: null }]);
  });

  it('Repair fixes a doctor finding by its check', async () => {
    const taskId = await task(unique('locked without lease'));
    await ui.app.db.query(`UPDATE tasks SET locked_by = 'ghost', locked_at = now(), lease_expires_at = NULL WHERE id = $1`, [taskId]);
    const item = await waiting('doctor_finding:lock_without_lease');
    const page = await ui.newPage();
    await openInbox(page);
    const li = await shown(page, item);
    await li.getByRole('button', { name: 'Repair' }).click();
    await li.getByRole('group', { name: 'Repair preview' }).getByRole('button', { name: 'Repair now' }).click();
    await resolved(page, item);
  });
});

describe('the Inbox live, by keyboard, on a phone, and to assistive technology', () => {
  it('drops an item without a reload when another client resolves it through the API', async () => {
    const item = await pendingApproval();
    const page = await ui.newPage();
    await openInbox(page);
    await shown(page, item);
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Live' }).count()).toBeGreaterThan(0);
    await page.evaluate(() => document.documentElement.setAttribute('data-before-change', 'yes'));
    const decided = await ui.call('PATCH', `/api/approvals/${item.approval_id}`, { decision: 'approved' });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    await expect.poll(() => itemOn(page, item).count()).toBe(0);
    // the same document: the page was not reloaded
    expect(await page.evaluate(() => document.documentElement.getAttribute('data-before-change'))).toBe('yes');
  });

  it('approves with the keyboard alone', async () => {
    const item = await pendingApproval();
    const page = await ui.newPage();
    await openInbox(page);
    const li = await shown(page, item);
    const approve = li.getByRole('button', { name: 'Approve' });
    // Tab from the top of the page until the item's Approve button has the focus
    for (let presses = 0; presses < 200 && !(await approve.evaluate((el) => el === document.activeElement)); presses++)
      await page.keyboard.press('Tab');
    expect(await approve.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await resolved(page, item);
  });

  it('approves on a 390×844 phone with no sideways scrolling', async () => {
    const item = await pendingApproval();
    const page = await ui.newPage({ viewport: { width: 390, height: 844 } });
    await openInbox(page);
    const li = await shown(page, item);
    expect(await scrollsSideways(page)).toBe(false);
    await li.getByRole('button', { name: 'Approve' }).click();
    await resolved(page, item);
    expect(await scrollsSideways(page)).toBe(false);
  });

  it('has no serious or critical axe violation with every kind of action waiting, in both themes', async () => {
    const items = [await pendingApproval(), await timedOutRun(), await hardStoppedBudget(), await pausedAgent(), await lapsedClaim()];
    await task(unique('waits on legal'), { status: 'blocked', metadata: { blocked_reason: 'legal review pending' } });
    for (const colorScheme of ['light', 'dark'] as const) {
      const page = await ui.newPage({ colorScheme });
      await openInbox(page);
      for (const item of items) await shown(page, item);
      await expectNoSeriousAxeViolations(page);
    }
  });
});
