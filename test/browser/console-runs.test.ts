import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectNoSeriousAxeViolations, scrollsSideways, useConsole } from '../support/console-browser';

/**
 * The Runs screen and the run page: the table filtered through the URL, a run started, cancelled
 * and retried from its row, an approval decided on the run page, axe, a phone's width.
 */
const ui = useConsole();
let projectId: string;
let type: string;

async function run(fields: Record<string, unknown> = {}): Promise<string> {
  const reply = await ui.call('POST', '/api/workflow-runs', { workflow_type: type, ...fields });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.id as string;
}
const statusOf = async (id: string) => (await ui.call('GET', `/api/workflow-runs/${id}`)).body.status as string;
const rowOf = (page: Page, id: string) => page.getByRole('table').getByRole('row', { name: new RegExp(id.slice(0, 8)) });

/** A run claimed by a session that waits for an approval of its review step. */
async function waitingForApproval(): Promise<{ id: string; approval: string }> {
  const id = await run();
  await ui.call('POST', `/api/workflow-runs/${id}/start`, {});
  const session = `agent:writer:subagent:${id.slice(0, 8)}`;
  expect((await ui.call('POST', `/api/workflow-runs/${id}/claim`, { agent_id: 'writer', session_id: session })).status).toBe(200);
  expect((await ui.call('POST', `/api/workflow-runs/${id}/start`, { session_id: session })).status).toBe(200);
  const asked = await ui.call('POST', `/api/workflow-runs/${id}/approvals`, { session_id: session, step_name: 'review' });
  expect(asked.status).toBe(201);
  return { id, approval: asked.body.approval.id };
}

async function openRuns(page: Page, query = '') {
  await page.goto(`/runs${query}`);
  await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Runs');
  await expect.poll(() => page.getByText('Reading the runs…').count()).toBe(0);
}

beforeAll(async () => {
  projectId = (await ui.call('POST', '/api/projects', { name: 'Runs screen' })).body.id;
  type = 'console-review';
  expect((await ui.call('POST', '/api/workflow-templates', { name: type, steps: ['draft', 'review'] })).status).toBe(201);
  expect((await ui.call('PUT', `/api/workflow-routing/${type}`, { agent_id: 'writer' })).status).toBe(200);
  expect((await ui.call('POST', '/api/workflow-templates', { name: 'console-other', steps: ['only'] })).status).toBe(201);
});

describe('the Runs screen', () => {
  it('filters the table by status through the URL, shows the queue above it, and has no serious axe violation', async () => {
    const queued = await run();
    const failed = await run();
    await ui.app.db.query(`UPDATE workflow_runs SET status = 'failed', last_error = 'broke', finished_at = now() WHERE id = $1`, [failed]);
    const page = await ui.newPage();
    await openRuns(page);
    await expect.poll(() => rowOf(page, queued).count()).toBe(1);
    expect(await rowOf(page, failed).count()).toBe(1);
    const dispatcher = page.getByRole('region', { name: 'Queue and dispatcher' });
    await expect.poll(() => dispatcher.textContent()).toMatch(/Queue depth\d+/);
    await expectNoSeriousAxeViolations(page);

    await page.getByLabel('Status', { exact: true }).selectOption('failed');
    await expect.poll(() => new URL(page.url()).searchParams.get('status')).toBe('failed');
    await expect.poll(() => rowOf(page, queued).count()).toBe(0);
    expect(await rowOf(page, failed).count()).toBe(1);

    // the filter is in the URL: a fresh page on it shows the same rows
    const again = await ui.newPage();
    await openRuns(again, '?status=failed');
    await expect.poll(() => rowOf(again, failed).count()).toBe(1);
    expect(await rowOf(again, queued).count()).toBe(0);
    expect(await again.getByLabel('Status', { exact: true }).inputValue()).toBe('failed');

    await page.getByLabel('Workflow type', { exact: true }).selectOption('console-other');
    await expect.poll(() => new URL(page.url()).search).toBe('?status=failed&type=console-other');
    await expect.poll(() => page.getByText('No runs match.').count()).toBe(1);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => rowOf(page, queued).count()).toBe(1);
  });

  it('starts a queued run, cancels it, and retries it from its row', async () => {
    const id = await run();
    const page = await ui.newPage();
    await openRuns(page);
    const row = rowOf(page, id);
    await expect.poll(() => row.getByRole('button', { name: 'Start', exact: true }).count()).toBe(1);
    await row.getByRole('button', { name: 'Start', exact: true }).click();
    await expect.poll(() => statusOf(id)).toBe('dispatched');
    await expect.poll(() => row.getByRole('cell', { name: 'dispatched' }).count()).toBe(1);
    expect(await row.getByRole('button', { name: 'Start', exact: true }).count()).toBe(0);

    await row.getByRole('button', { name: 'Cancel', exact: true }).click();
    await expect.poll(() => statusOf(id)).toBe('cancelled');
    await expect.poll(() => row.getByRole('cell', { name: 'cancelled' }).count()).toBe(1);

    await row.getByRole('button', { name: 'Retry', exact: true }).click();
    await expect.poll(() => statusOf(id)).toBe('queued');
    await expect.poll(() => row.getByRole('cell', { name: 'queued' }).count()).toBe(1);
    expect((await ui.call('GET', `/api/workflow-runs/${id}`)).body.retry_count).toBe(1);
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'back in the queue' }).count()).toBe(1);
  });

  it('says why a run cannot start: the server’s refusal shown as an alert', async () => {
    const unrouted = (await ui.call('POST', '/api/workflow-runs', { workflow_type: 'console-other' })).body.id as string;
    const page = await ui.newPage();
    await openRuns(page, '?type=console-other');
    await rowOf(page, unrouted).getByRole('button', { name: 'Start', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/no agent route/);
    expect(await statusOf(unrouted)).toBe('queued');
  });

  it('asks for its rows at most once a second while runs keep changing, and shows the last change', async () => {
    const page = await ui.newPage();
    await openRuns(page);
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('Live');
    let asked = 0;
    page.on('request', (r) => {
      const { pathname } = new URL(r.url());
      if (pathname.startsWith('/api/') && !pathname.startsWith('/api/events')) asked++;
    });
    const started = Date.now();
    let changes = 0;
    while (Date.now() - started < 3000) {
      const replies = await Promise.all(
        Array.from({ length: 10 }, () => ui.call('POST', '/api/workflow-runs', { workflow_type: 'console-other' })),
      );
      changes += replies.filter((r) => r.status === 201).length;
    }
    const seconds = (Date.now() - started) / 1000;
    expect(changes).toBeGreaterThan(seconds * 5); // a flow: five changes a second or more
    expect(asked).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
    const last = await run();
    await expect.poll(() => rowOf(page, last).count()).toBe(1);
  });

  it('shows a run created elsewhere without a reload (live rows)', async () => {
    const page = await ui.newPage();
    await openRuns(page);
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('Live');
    const id = await run();
    await expect.poll(() => rowOf(page, id).count()).toBe(1);
  });
});

describe('the run page', () => {
  it('decides an approval in place, shows the timeline and the transcript section, with no serious axe violation', async () => {
    const t = (await ui.call('POST', '/api/tasks', { project_id: projectId, title: 'Needs a review' })).body.id as string;
    const { id, approval } = await waitingForApproval();
    await ui.app.db.query('UPDATE workflow_runs SET task_id = $2 WHERE id = $1', [id, t]);
    const page = await ui.newPage();
    await page.goto(`/runs/${id}`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(`Run ${id.slice(0, 8)} · ${type}`);
    const timeline = page.getByRole('region', { name: 'Timeline' });
    await expect
      .poll(() => timeline.getByRole('listitem').allTextContents())
      .toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^queued/),
          expect.stringMatching(/^dispatched/),
          expect.stringMatching(/^running/),
          expect.stringMatching(/^waiting for approval/),
        ]),
      );
    expect(await page.getByRole('region', { name: 'Transcript' }).textContent()).toContain(`agent:writer:subagent:${id.slice(0, 8)}`);
    expect(await page.getByRole('region', { name: 'Blockers' }).textContent()).toContain('waiting for approval: review');
    await expectNoSeriousAxeViolations(page);

    const approvals = page.getByRole('region', { name: 'Approvals' });
    await approvals.getByLabel('Note (optional)').fill('looks right');
    await approvals.getByRole('button', { name: 'Approve' }).click();
    await expect
      .poll(async () => (await ui.call('GET', `/api/approvals?workflow_run_id=${id}`)).body.approvals[0])
      .toMatchObject({ id: approval, status: 'approved', note: 'looks right' });
    await expect.poll(() => approvals.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await expect.poll(() => page.locator('.run-summary').textContent()).toMatch(/^running/);
    expect(await statusOf(id)).toBe('running');
    await expect.poll(() => page.getByRole('region', { name: 'Blockers' }).textContent()).toContain('Nothing blocks this run.');
  });

  it('shows a text artifact’s text, links a URL artifact, and saves metadata edited as JSON', async () => {
    const { id } = await waitingForApproval();
    const session = `agent:writer:subagent:${id.slice(0, 8)}`;
    const text = await ui.call('POST', `/api/workflow-runs/${id}/artifacts`, {
      session_id: session,
      artifact_type: 'text',
      title: 'Draft',
      content: 'First line\nsecond line',
      metadata: { words: 4 },
    });
    expect(text.status).toBe(201);
    expect(
      (
        await ui.call('POST', `/api/workflow-runs/${id}/artifacts`, {
          session_id: session,
          artifact_type: 'url',
          title: 'Preview',
          uri: 'https://example.com/preview',
        })
      ).status,
    ).toBe(201);
    const page = await ui.newPage();
    await page.goto(`/runs/${id}`);
    const artifacts = page.getByRole('region', { name: 'Artifacts' });
    await expect.poll(() => artifacts.locator('pre').textContent()).toBe('First line\nsecond line');
    expect(await artifacts.getByRole('link', { name: 'https://example.com/preview' }).getAttribute('href')).toBe(
      'https://example.com/preview',
    );
    const metadata = artifacts.getByLabel('Metadata of Draft (JSON, merged into what it holds)');
    await metadata.fill('{"words": 5, "reviewed": true}');
    await artifacts.getByRole('button', { name: 'Save metadata' }).first().click();
    await expect
      .poll(
        async () =>
          (await ui.call('GET', `/api/artifacts?workflow_run_id=${id}`)).body.artifacts.find((a: { id: string }) => a.id === text.body.id)
            ?.metadata,
      )
      .toEqual({ words: 5, reviewed: true });
    // the page shows the artifact as read back (pretty-printed) before the next edit
    await expect.poll(() => metadata.inputValue()).toContain('\n  "reviewed": true');
    await metadata.fill('not json');
    await artifacts.getByRole('button', { name: 'Save metadata' }).first().click();
    await expect.poll(() => artifacts.getByRole('alert').textContent()).toBe('The metadata is not valid JSON.');
  });

  it('is where the task page’s run links and the palette’s run id land', async () => {
    const t = (await ui.call('POST', '/api/tasks', { project_id: projectId, title: 'Has a run' })).body.id as string;
    const id = await run({ task_id: t });
    const page = await ui.newPage();
    await page.goto(`/tasks/${t}`);
    await page
      .getByRole('region', { name: 'Runs' })
      .getByRole('link', { name: id.slice(0, 8) })
      .click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(`Run ${id.slice(0, 8)} · ${type}`);
    await page.goto('/');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Inbox');
    await page.keyboard.press('Control+k');
    await expect.poll(() => page.evaluate(() => document.activeElement?.closest('dialog') != null)).toBe(true);
    await page.keyboard.type(id);
    await expect.poll(() => page.getByRole('option', { name: `Open run ${id}` }).count()).toBe(1);
    while ((await page.getByRole('option', { name: `Open run ${id}` }).getAttribute('aria-selected')) !== 'true')
      await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(`Run ${id.slice(0, 8)} · ${type}`);
  });

  it('says so when the run does not exist', async () => {
    const page = await ui.newPage();
    await page.goto('/runs/00000000-0000-4000-8000-000000000000');
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/not found/);
  });
});

describe('on a phone (390×844)', () => {
  it('fits the runs table and the run page with no sideways scrolling, in both themes', async () => {
    await run({ input_payload: { note: 'x'.repeat(300) } });
    const { id } = await waitingForApproval();
    for (const colorScheme of ['light', 'dark'] as const) {
      const page = await ui.newPage({ viewport: { width: 390, height: 844 }, colorScheme });
      await openRuns(page);
      await expect.poll(() => page.getByRole('table').getByRole('row').count()).toBeGreaterThan(1);
      expect(await scrollsSideways(page)).toBe(false);
      await page.goto(`/runs/${id}`);
      await expect.poll(() => page.getByRole('region', { name: 'Timeline' }).getByRole('listitem').count()).toBeGreaterThan(1);
      expect(await scrollsSideways(page)).toBe(false);
      await expectNoSeriousAxeViolations(page);
    }
  });
});
