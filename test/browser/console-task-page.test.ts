import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectNoSeriousAxeViolations, scrollsSideways, useConsole } from '../support/console-browser';

/** The task page: fields edited and saved, a dependency cycle refused with the server's message, a revert previewed then applied. */
const ui = useConsole();
let projectId: string;

async function task(title: string, fields: Record<string, unknown> = {}) {
  const reply = await ui.call('POST', '/api/tasks', { project_id: projectId, title, ...fields });
  expect(reply.status).toBe(201);
  return reply.body.id as string;
}
const stored = async (id: string) => (await ui.call('GET', `/api/tasks/${id}`)).body;

async function open(page: Page, id: string, title: string) {
  await page.goto(`/tasks/${id}`);
  await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(title);
}

beforeAll(async () => {
  projectId = (await ui.call('POST', '/api/projects', { name: 'Task page' })).body.id;
});

describe('the task page', () => {
  it('edits every field through its label and saves them in one change, with no serious axe violation', async () => {
    const id = await task('Edit me');
    const page = await ui.newPage();
    await open(page, id, 'Edit me');
    await expectNoSeriousAxeViolations(page);
    await page.getByLabel('Title', { exact: true }).fill('Edited on the page');
    await page.getByLabel('Description', { exact: true }).fill('Now with a description');
    await page.getByLabel('Status', { exact: true }).selectOption('review');
    await page.getByLabel('Priority', { exact: true }).selectOption('critical');
    await page.getByLabel('Owner', { exact: true }).fill('ana');
    await page.getByLabel('Due date', { exact: true }).fill('2031-05-06');
    await page.getByLabel('Estimated effort', { exact: true }).fill('3.5');
    await page.getByLabel('Labels (comma-separated)', { exact: true }).fill('docs, urgent');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Edited on the page');
    const after = await stored(id);
    expect(after).toMatchObject({
      title: 'Edited on the page',
      description: 'Now with a description',
      status: 'review',
      priority: 'critical',
      owner: 'ana',
      estimated_effort: 3.5,
      labels: ['docs', 'urgent'],
    });
    expect(after.due_date.slice(0, 10)).toBe('2031-05-06');
  });

  it('adds a dependency, and refuses one that closes a cycle with the server’s message', async () => {
    const first = await task('First step');
    const second = await task('Second step', { dependency_ids: [first] });
    const page = await ui.newPage();
    await open(page, first, 'First step');
    await page.getByLabel('Add dependency (task id)').fill(second);
    await page.getByRole('button', { name: 'Add dependency' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/cycle/i);
    expect((await stored(first)).dependency_ids).toEqual([]);
    const third = await task('Third step');
    await page.getByLabel('Add dependency (task id)').fill(third);
    await page.getByRole('button', { name: 'Add dependency' }).click();
    await expect.poll(() => page.getByRole('region', { name: 'Dependencies' }).getByRole('link', { name: 'Third step' }).count()).toBe(1);
    expect((await stored(first)).dependency_ids).toEqual([third]);
  });

  it('shows the history as field diffs, previews a revert, and applies it', async () => {
    const id = await task('Original title', { priority: 'low' });
    await ui.call('PATCH', `/api/tasks/${id}`, { title: 'Renamed title', priority: 'high' });
    const page = await ui.newPage();
    await open(page, id, 'Renamed title');
    const history = page.getByRole('region', { name: 'History' });
    await expect.poll(() => history.getByRole('row', { name: /Title Original title Renamed title/ }).count()).toBe(1);
    await history.getByRole('button', { name: 'Revert to this version' }).first().click();
    const preview = page.getByRole('group', { name: 'Revert preview' });
    await expect.poll(() => preview.getByRole('row', { name: /Title Renamed title Original title/ }).count()).toBe(1);
    expect((await stored(id)).title).toBe('Renamed title'); // the preview changed nothing
    await preview.getByRole('button', { name: 'Confirm revert' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Original title');
    expect(await stored(id)).toMatchObject({ title: 'Original title', priority: 'low' });
  });

  it('shows the dates in History in the reader’s own time, the ISO instant kept in a time element', async () => {
    const id = await task('Dated task');
    expect((await ui.call('PATCH', `/api/tasks/${id}`, { due_date: '2031-05-06T12:30:00.000Z' })).status).toBe(200);
    const page = await ui.newPage();
    await open(page, id, 'Dated task');
    const history = page.getByRole('region', { name: 'History' });
    const due = history.getByRole('row', { name: /^Due date / }).locator('time');
    await expect.poll(() => due.count()).toBe(1);
    const shown = await due.evaluate((el) => ({
      iso: el.getAttribute('datetime') ?? '',
      text: el.textContent ?? '',
      local: new Date(el.getAttribute('datetime') ?? '').toLocaleString(),
    }));
    expect(Date.parse(shown.iso)).toBe(Date.parse('2031-05-06T12:30:00.000Z'));
    expect(shown.text).toBe(shown.local);
    expect(shown.text).not.toContain('T12:30');
    // each version is dated the same way
    const versions = await history
      .getByRole('listitem')
      .locator('p time')
      .evaluateAll((els) =>
        els.map((el) => ({
          iso: el.getAttribute('datetime') ?? '',
          text: el.textContent ?? '',
          local: new Date(el.getAttribute('datetime') ?? '').toLocaleString(),
        })),
      );
    expect(versions.length).toBe(2);
    for (const v of versions) expect(v.text).toBe(v.local);
  });

  it('asks for the task at most once a second while it keeps changing, both of its reads together, and shows the last change', async () => {
    const id = await task('Changed in a flow');
    const page = await ui.newPage();
    await open(page, id, 'Changed in a flow');
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('Live');
    let asked = 0;
    page.on('request', (r) => {
      const { pathname } = new URL(r.url());
      if (pathname.startsWith('/api/') && !pathname.startsWith('/api/events')) asked++;
    });
    const started = Date.now();
    let changes = 0;
    while (Date.now() - started < 3000) {
      // ten changes at a time
      const replies = await Promise.all(
        Array.from({ length: 10 }, (_, k) => ui.call('PATCH', `/api/tasks/${id}`, { description: `Flow change ${changes + k}` })),
      );
      changes += replies.filter((r) => r.status === 200).length;
    }
    const seconds = (Date.now() - started) / 1000;
    const duringFlow = asked;
    expect(changes).toBeGreaterThan(seconds * 5); // a flow: five changes a second or more
    expect(duringFlow).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
    expect((await ui.call('PATCH', `/api/tasks/${id}`, { title: 'After the flow' })).status).toBe(200);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('After the flow');
    await expect
      .poll(() =>
        page
          .getByRole('region', { name: 'History' })
          .getByRole('row', { name: /^Title Changed in a flow After the flow$/ })
          .count(),
      )
      .toBe(1);
  });

  it('names a dependency in History by its title, linked to its page, whether it is still a dependency or not', async () => {
    const kept = await task('Kept prerequisite');
    const dropped = await task('Dropped prerequisite');
    const id = await task('Depends on two', { dependency_ids: [kept, dropped] });
    expect((await ui.call('POST', `/api/tasks/${id}/dependencies`, { remove: [dropped] })).status).toBe(200);
    const page = await ui.newPage();
    await open(page, id, 'Depends on two');
    const history = page.getByRole('region', { name: 'History' });
    const row = history.getByRole('row', { name: /^Dependencies / });
    await expect.poll(() => row.textContent()).toBe('DependenciesKept prerequisite, Dropped prerequisiteKept prerequisite');
    expect(await row.getByRole('link', { name: 'Dropped prerequisite' }).getAttribute('href')).toBe(`/tasks/${dropped}`);
    expect(await row.getByRole('link', { name: 'Kept prerequisite' }).first().getAttribute('href')).toBe(`/tasks/${kept}`);
    expect(await row.textContent()).not.toContain(dropped);
  });

  it('fits a phone (390×844) with no sideways scrolling of the page, in both themes', async () => {
    const id = await task('A task read on a phone with a rather long title that has to wrap somewhere', {
      description: 'x'.repeat(400),
      labels: ['one', 'two'],
    });
    await ui.call('PATCH', `/api/tasks/${id}`, { priority: 'high' });
    for (const colorScheme of ['light', 'dark'] as const) {
      const page = await ui.newPage({ viewport: { width: 390, height: 844 }, colorScheme });
      await open(page, id, 'A task read on a phone with a rather long title that has to wrap somewhere');
      await expect.poll(() => page.getByRole('region', { name: 'History' }).getByRole('row').count()).toBeGreaterThan(1);
      expect(await scrollsSideways(page)).toBe(false);
    }
  });
});
