import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectNoSeriousAxeViolations, scrollsSideways, useConsole } from '../support/console-browser';

/** The Audit screen: a search by actor and days kept in the URL, pages read as the list scrolls, a record's entity history with a revert, the CSV of the search. */
const ui = useConsole();
const BULK = 230;

beforeAll(async () => {
  await ui.app.db.query(
    `INSERT INTO audit_log (timestamp, actor, action, entity_type, entity_id, old_value, new_value) VALUES
       ('2031-03-01T09:00:00Z', 'ana', 'created', 'widget', 'w-1', NULL, '{"colour":"red"}'),
       ('2031-03-02T09:00:00Z', 'ana', 'updated', 'widget', 'w-1', '{"colour":"red"}', '{"colour":"blue"}'),
       ('2031-03-03T09:00:00Z', 'ana', 'updated', 'widget', 'w-1', '{"colour":"blue"}', '{"colour":"green"}'),
       ('2031-03-03T10:00:00Z', 'bo', 'updated', 'widget', 'w-2', '{"colour":"red"}', '{"colour":"pink"}'),
       ('2031-03-05T09:00:00Z', 'ana', 'deleted', 'widget', 'w-1', '{"colour":"green"}', NULL)`,
  );
  await ui.app.db.query(
    `INSERT INTO audit_log (timestamp, actor, action, entity_type, entity_id, new_value)
     SELECT '2031-04-01T00:00:00Z'::timestamptz + g * interval '1 second', 'bulk-bot', 'updated', 'widget', 'b-' || g, jsonb_build_object('n', g)
       FROM generate_series(1, ${BULK}) g`,
  );
});

const records = (page: Page) => page.getByRole('list', { name: 'Audit records' }).getByRole('button');
const summary = (page: Page) => page.getByRole('region', { name: 'Records', exact: true }).getByRole('status');

describe('the Audit screen', () => {
  it('searches by actor and a range of days, keeps the search in the URL, and has no serious axe violation', async () => {
    const page = await ui.newPage();
    await page.goto('/audit');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Audit');
    await expect.poll(() => summary(page).textContent()).toMatch(/records, newest first/);
    expect(await page.getByRole('searchbox', { name: 'Search' }).count()).toBe(1);
    await expectNoSeriousAxeViolations(page);

    const search = page.getByRole('search', { name: 'Audit search' });
    await search.getByLabel('Actor').fill('ana');
    await search.getByLabel('From (day)').fill('2031-03-02');
    await search.getByLabel('To (day, included)').fill('2031-03-03');
    await search.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => new URL(page.url()).search).toBe('?actor=ana&start_date=2031-03-02&end_date=2031-03-03');
    await expect.poll(() => summary(page).textContent()).toBe('2 records, newest first');
    expect(await records(page).allTextContents()).toEqual([
      expect.stringMatching(/ana updated widget w-1$/),
      expect.stringMatching(/ana updated widget w-1$/),
    ]);

    await page.reload();
    await expect.poll(() => summary(page).textContent()).toBe('2 records, newest first');
    expect(await page.getByLabel('Actor').inputValue()).toBe('ana');
    expect(await page.getByLabel('From (day)').inputValue()).toBe('2031-03-02');
    await expectNoSeriousAxeViolations(page);
  });

  it('reads the next pages as the list scrolls, drawing only the rows in view', async () => {
    const page = await ui.newPage();
    let pages = 0;
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/api/audit') pages++;
    });
    await page.goto('/audit?actor=bulk-bot');
    await expect.poll(() => summary(page).textContent()).toBe('100+ records, newest first');
    expect(await records(page).count()).toBeLessThan(60);
    const scroller = page.locator('.audit-scroll');
    await expect
      .poll(async () => {
        await scroller.evaluate((el) => el.scrollTo(0, el.scrollHeight));
        return summary(page).textContent();
      })
      .toBe(`${BULK} records, newest first`);
    expect(pages).toBe(3);
    // the oldest record is drawn once the list's end is in view
    await expect
      .poll(async () => {
        await scroller.evaluate((el) => el.scrollTo(0, el.scrollHeight));
        return records(page).last().textContent();
      })
      .toMatch(/bulk-bot updated widget b-1$/);
    expect(await records(page).count()).toBeLessThan(60);
  });

  it('opens a record’s entity history: the change, the state as of it, and a revert previewed then applied', async () => {
    const project = (await ui.call('POST', '/api/projects', { name: 'Audited project' })).body.id;
    const task = (await ui.call('POST', '/api/tasks', { project_id: project, title: 'Before the audit', priority: 'low' })).body.id;
    expect((await ui.call('PATCH', `/api/tasks/${task}`, { title: 'After the audit' })).status).toBe(200);
    const page = await ui.newPage();
    await page.goto(`/audit?action=updated&entity_type=task`);
    await expect.poll(() => summary(page).textContent()).toBe('1 record, newest first');
    await records(page).first().click();
    const entry = page.getByRole('region', { name: `updated · task ${task}` });
    await expect
      .poll(() =>
        entry.getByRole('table', { name: 'This change' }).getByRole('row', { name: 'title Before the audit After the audit' }).count(),
      )
      .toBe(1);
    await expect
      .poll(() =>
        entry
          .getByRole('region', { name: /^State as of / })
          .getByRole('row', { name: 'title After the audit' })
          .count(),
      )
      .toBe(1);
    await expectNoSeriousAxeViolations(page);

    const history = entry.getByRole('region', { name: 'Entity history' });
    await history.getByRole('button', { name: 'Revert to this version' }).first().click();
    const preview = history.getByRole('group', { name: 'Revert preview' });
    await expect.poll(() => preview.getByRole('row', { name: 'title After the audit Before the audit' }).count()).toBe(1);
    expect((await ui.call('GET', `/api/tasks/${task}`)).body.title).toBe('After the audit'); // the preview changed nothing
    await preview.getByRole('button', { name: 'Confirm revert' }).click();
    await expect.poll(async () => (await ui.call('GET', `/api/tasks/${task}`)).body.title).toBe('Before the audit');
    await expect.poll(() => entry.getByRole('status').textContent()).toBe('Reverted to the chosen version.');
  });

  it('downloads the search as CSV: GET /api/audit.csv fetched by the page and saved as a file', async () => {
    const page = await ui.newPage();
    await page.goto('/audit?actor=ana&end_date=2031-03-03');
    await expect.poll(() => summary(page).textContent()).toBe('3 records, newest first');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^audit-\d{8}-\d{4}\.csv$/);
    const lines = (await readFile((await download.path())!, 'utf8')).trim().split('\r\n');
    expect(lines[0]).toBe('id,timestamp,actor,action,entity_type,entity_id,task_id,project_id,old_value,new_value');
    expect(lines.slice(1).map((l) => l.split(',').slice(1, 4).join(' '))).toEqual([
      '2031-03-03T09:00:00.000Z ana updated',
      '2031-03-02T09:00:00.000Z ana updated',
      '2031-03-01T09:00:00.000Z ana created',
    ]);
  });

  it('fits a phone (390×844) without sideways scrolling, in both themes', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const page = await ui.newPage({ viewport: { width: 390, height: 844 }, colorScheme });
      await page.goto('/audit?actor=ana');
      await expect.poll(() => summary(page).textContent()).toBe('4 records, newest first');
      await records(page).first().click();
      await expect.poll(() => page.getByRole('region', { name: /^State as of / }).count()).toBe(1);
      expect(await scrollsSideways(page)).toBe(false);
      await expectNoSeriousAxeViolations(page);
    }
  });
});
