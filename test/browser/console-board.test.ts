/// <reference lib="dom" />
// (the DOM types: page.evaluate callbacks run in the browser)
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectNoSeriousAxeViolations, scrollsSideways, useConsole } from '../support/console-browser';

/** The Board: columns, moves by keyboard and by drag, a refused move, adding, URL filters, live changes, virtualization. */
const ui = useConsole();
let projectId: string;
const ids: Record<string, string> = {};

async function task(title: string, fields: Record<string, unknown> = {}) {
  const reply = await ui.call('POST', '/api/tasks', { project_id: projectId, title, ...fields });
  expect(reply.status).toBe(201);
  ids[title] = reply.body.id;
  return reply.body.id as string;
}

const statusName: Record<string, string> = { backlog: 'Backlog', ready: 'Ready' };
const column = (page: Page, name: string) => page.getByRole('region', { name: new RegExp(`^${name} \\d+$`) });
const card = (page: Page, title: string) => page.getByRole('article', { name: title });
const statusOf = async (title: string) => (await ui.call('GET', `/api/tasks/${ids[title]}`)).body.status as string;

/**
 * Opens the board and waits for its whole answer: an unfiltered board shows its first screenful
 * first and the whole board after it, so a change made behind the board's back before the whole
 * board has landed would show in it.
 */
async function openBoard(page: Page, query = '') {
  const whole = page.waitForResponse((r) => {
    const url = new URL(r.url());
    return url.pathname === '/api/views/board' && !url.searchParams.has('limit_per_column');
  });
  await page.goto(`/board?project=${projectId}${query}`);
  await whole;
  await expect.poll(() => page.getByRole('region', { name: /^Backlog \d+$/ }).count()).toBe(1);
}

beforeAll(async () => {
  projectId = (await ui.call('POST', '/api/projects', { name: 'Console board' })).body.id;
  await ui.call('POST', '/api/projects', { name: 'Another project' });
  await task('Write the release notes', { priority: 'high', owner: 'ana', labels: ['docs'] });
  await task('Alpha migration', { status: 'ready', priority: 'critical', owner: 'bo' });
  await task('Alpha rollback plan', { status: 'ready', priority: 'low', owner: 'ana' });
  await task('Dragged to blocked', { status: 'in_progress' });
  await task('Moved by keyboard', { status: 'backlog' });
  await task('Deleted behind the board', { status: 'backlog' });
  await task('Waits on the notes', { status: 'ready', dependency_ids: [ids['Write the release notes']] });
});

describe('the board', () => {
  it('shows the columns in spec 01’s order as regions named by status with their counts, the stuck reason, and no serious axe violation', async () => {
    const page = await ui.newPage();
    await openBoard(page);
    const labels = await page.getByRole('region').evaluateAll((regions) => regions.map((r) => r.getAttribute('aria-labelledby') ?? ''));
    expect(labels.filter((l) => l.startsWith('column-'))).toEqual([
      'column-backlog',
      'column-ready',
      'column-in_progress',
      'column-blocked',
      'column-review',
      'column-completed',
    ]);
    await expect.poll(() => column(page, 'Ready').getByRole('heading', { level: 2 }).textContent()).toBe('Ready 3');
    await expect.poll(() => column(page, 'Blocked').getByRole('heading', { level: 2 }).textContent()).toBe('Blocked 0');
    expect(await card(page, 'Waits on the notes').textContent()).toContain('Waiting on 1 unmet dependency');
    expect(await page.getByRole('combobox', { name: 'Project', exact: true }).inputValue()).toBe(projectId);
    await expectNoSeriousAxeViolations(page);
  });

  it('moves a card with the keyboard through its Move to menu, which lists only the other columns', async () => {
    const page = await ui.newPage();
    await openBoard(page);
    const moving = card(page, 'Moved by keyboard');
    await moving.getByRole('button', { name: 'Move to' }).focus();
    await page.keyboard.press('Enter');
    const items = await moving.getByRole('menuitem').allTextContents();
    expect(items).toEqual(['Ready', 'In progress', 'Blocked', 'Review', 'Completed']);
    await moving.getByRole('menuitem', { name: 'Review' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => column(page, 'Review').getByRole('article', { name: 'Moved by keyboard' }).count()).toBe(1);
    await expect.poll(() => statusOf('Moved by keyboard')).toBe('review');
  });

  it('moves a card by drag and drop', async () => {
    const page = await ui.newPage();
    await openBoard(page);
    await card(page, 'Dragged to blocked').dragTo(column(page, 'Blocked'));
    await expect.poll(() => statusOf('Dragged to blocked')).toBe('blocked');
    await expect.poll(() => column(page, 'Blocked').getByRole('article', { name: 'Dragged to blocked' }).count()).toBe(1);
  });

  it('shows the server’s error when it refuses a move, and the card does not stay in the column it was dropped on', async () => {
    const page = await ui.newPage();
    await openBoard(page);
    // deleted in the database behind the console's back: no event tells the board
    await ui.app.db.query('UPDATE tasks SET deleted_at = now() WHERE id = $1', [ids['Deleted behind the board']]);
    const refused = card(page, 'Deleted behind the board');
    await refused.getByRole('button', { name: 'Move to' }).click();
    await refused.getByRole('menuitem', { name: 'Ready' }).click();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toContain(`task ${ids['Deleted behind the board']} is deleted; restore it first`);
    await expect.poll(() => column(page, 'Ready').getByRole('article', { name: 'Deleted behind the board' }).count()).toBe(0);
  });

  it('adds a task in a column', async () => {
    const page = await ui.newPage();
    await openBoard(page);
    const blocked = column(page, 'Blocked');
    await blocked.getByRole('button', { name: 'Add task' }).click();
    await blocked.getByLabel('New task title').fill('Added from the board');
    await blocked.getByRole('button', { name: 'Add', exact: true }).click();
    await expect.poll(() => blocked.getByRole('article', { name: 'Added from the board' }).count()).toBe(1);
    const { rows } = await ui.app.db.query<{ status: string }>('SELECT status FROM tasks WHERE project_id = $1 AND title = $2', [
      projectId,
      'Added from the board',
    ]);
    expect(rows).toEqual([{ status: 'blocked' }]);
  });

  it('applies the filters the URL carries, with the text filter as a search field', async () => {
    const page = await ui.newPage();
    const firstScreenfuls: string[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).searchParams.has('limit_per_column')) firstScreenfuls.push(r.url());
    });
    await openBoard(page, '&q=alpha&owner=bo');
    expect(await page.getByRole('searchbox', { name: 'Filter by title' }).inputValue()).toBe('alpha');
    await expect
      .poll(() =>
        page
          .getByRole('article')
          .allTextContents()
          .then((t) => t.length),
      )
      .toBe(1);
    expect(await page.getByRole('article').getByRole('heading', { level: 3 }).textContent()).toBe('Alpha migration');
    await page.getByRole('searchbox', { name: 'Filter by title' }).fill('release');
    await page.getByRole('combobox', { name: 'Owner', exact: true }).selectOption('');
    await expect.poll(() => page.url()).toContain('q=release');
    expect(page.url()).not.toContain('owner=');
    await expect
      .poll(() =>
        page
          .getByRole('article')
          .allTextContents()
          .then((t) => t.length),
      )
      .toBe(1);
    // counts of the cards that match cannot come from a first screenful: a filtered board waits for the whole
    expect(firstScreenfuls).toEqual([]);
  });

  it('shows a change made through the API without a reload', async () => {
    const page = await ui.newPage();
    await openBoard(page);
    await expect.poll(() => column(page, 'Ready').getByRole('article', { name: 'Alpha rollback plan' }).count()).toBe(1);
    await ui.call('POST', `/api/tasks/${ids['Alpha rollback plan']}/move`, { status: 'blocked' });
    await expect.poll(() => column(page, 'Blocked').getByRole('article', { name: 'Alpha rollback plan' }).count()).toBe(1);
  });

  it('asks for the board at most once a second while changes keep coming, and shows the last of them', async () => {
    const flowProject = (await ui.call('POST', '/api/projects', { name: 'Board in a flow' })).body.id as string;
    const moving: string[] = [];
    for (let i = 0; i < 10; i++)
      moving.push(
        (await ui.call('POST', '/api/tasks', { project_id: flowProject, title: `Moved back and forth ${i}`, status: 'backlog' })).body
          .id as string,
      );
    const page = await ui.newPage();
    await page.goto(`/board?project=${flowProject}`);
    await expect.poll(() => column(page, 'Backlog').getByRole('article').count()).toBe(10);
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('Live');
    const asked: string[] = [];
    page.on('request', (r) => {
      const { pathname } = new URL(r.url());
      if (pathname.startsWith('/api/') && !pathname.startsWith('/api/events')) asked.push(pathname);
    });
    const started = Date.now();
    let moves = 0;
    let now = 'backlog';
    while (Date.now() - started < 3000) {
      // ten changes at a time, each card to the other column
      now = now === 'backlog' ? 'ready' : 'backlog';
      const replies = await Promise.all(moving.map((id) => ui.call('POST', `/api/tasks/${id}/move`, { status: now })));
      for (const reply of replies) expect(reply.status).toBe(200);
      moves += replies.length;
    }
    const seconds = (Date.now() - started) / 1000;
    const duringFlow = asked.length;
    expect(moves).toBeGreaterThan(seconds * 5); // a flow: five changes a second or more
    // the flow's first change answered at once, then one request a second for the whole page (the Inbox count included)
    expect(duringFlow).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
    await expect.poll(() => column(page, statusName[now]!).getByRole('article').count()).toBe(10);
  });

  it('says on a card when its run waits for an approval and when its agent’s dispatch is paused', async () => {
    const approving = await task('Waits for an approval');
    const { rows } = await ui.app.db.query<{ id: string }>(
      `INSERT INTO workflow_runs (id, workflow_type, task_id, owner_agent_id, status) VALUES (gen_random_uuid(), 'publish', $1, 'writer', 'waiting_for_approval') RETURNING id`,
      [approving],
    );
    await ui.app.db.query(
      `INSERT INTO workflow_approvals (id, workflow_run_id, step_name) VALUES (gen_random_uuid(), $1, 'legal review')`,
      [rows[0]!.id],
    );
    const paused = await task('Claimed by a paused agent', { status: 'in_progress' });
    await ui.app.db.query(`UPDATE tasks SET locked_by = 'quota-hit', lease_expires_at = now() + interval '1 hour' WHERE id = $1`, [paused]);
    await ui.app.db.query(
      `INSERT INTO agent_dispatch_controls (agent_id, dispatch_paused_until, pause_reason) VALUES ('quota-hit', now() + interval '1 hour', 'provider quota exhausted')`,
    );
    const page = await ui.newPage();
    await openBoard(page);
    await expect.poll(() => card(page, 'Waits for an approval').getByText('Waiting for an approval of legal review').count()).toBe(1);
    await expect
      .poll(() => card(page, 'Claimed by a paused agent').getByText('Its agent quota-hit is paused (provider quota exhausted)').count())
      .toBe(1);
    expect(await card(page, 'Alpha migration').locator('.stuck').count()).toBe(0);
  });

  it('shows every column at 1280×800, each reachable by Tab, with no sideways scrolling of the page', async () => {
    const page = await ui.newPage({ viewport: { width: 1280, height: 800 } });
    await openBoard(page);
    const width = await page.evaluate(() => window.innerWidth);
    for (const name of ['Backlog', 'Ready', 'In progress', 'Blocked', 'Review', 'Completed']) {
      const box = await column(page, name).boundingBox();
      expect(box, name).not.toBeNull();
      expect(box!.x, name).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width, name).toBeLessThanOrEqual(width);
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    const reached = new Set<string>();
    for (let i = 0; i < 150 && reached.size < 6; i++) {
      await page.keyboard.press('Tab');
      const where = await page.evaluate(() => {
        const focused = document.activeElement;
        const rect = focused?.getBoundingClientRect();
        return { column: focused?.closest('section.board-column')?.getAttribute('aria-labelledby') ?? '', right: rect?.right ?? 0 };
      });
      if (where.column) {
        reached.add(where.column);
        expect(where.right, where.column).toBeLessThanOrEqual(width);
      }
    }
    expect([...reached].sort()).toEqual([
      'column-backlog',
      'column-blocked',
      'column-completed',
      'column-in_progress',
      'column-ready',
      'column-review',
    ]);
  });

  it('renders only the visible part of a long column, and the page does not scroll sideways on a phone', async () => {
    const bulk = (await ui.call('POST', '/api/projects', { name: 'Bulk board' })).body.id as string;
    await ui.app.db.query(
      `INSERT INTO tasks (id, project_id, title, status) SELECT gen_random_uuid(), $1, 'Bulk task ' || g, 'backlog' FROM generate_series(1, 3000) g`,
      [bulk],
    );
    const page = await ui.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(`/board?project=${bulk}`);
    const backlog = column(page, 'Backlog');
    await expect.poll(() => backlog.getByRole('heading', { level: 2 }).textContent(), { timeout: 20_000 }).toBe('Backlog 3000');
    await expect.poll(() => backlog.getByRole('article').count()).toBeGreaterThan(0);
    expect(await backlog.getByRole('article').count()).toBeLessThan(60);
    expect(await scrollsSideways(page)).toBe(false);
    for (const region of await page.getByRole('region', { name: /^\S.* \d+$/ }).all()) {
      const box = (await region.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }
  });
});

describe('the board opening', () => {
  it('paints the first screenful of each column with every column’s count while the whole board travels, then the rest, where the operator had scrolled', async () => {
    const long = (await ui.call('POST', '/api/projects', { name: 'Long board' })).body.id as string;
    // oldest first among equals: Long task 001 heads the backlog after the critical tasks below
    await ui.app.db.query(
      `INSERT INTO tasks (id, project_id, title, status, priority, created_at)
       SELECT gen_random_uuid(), $1, 'Long task ' || lpad(g::text, 3, '0'), CASE WHEN g <= 200 THEN 'backlog' ELSE 'completed' END, 'medium', now() - (1000 - g) * interval '1 second'
         FROM generate_series(1, 260) g`,
      [long],
    );
    const idOf = async (title: string) =>
      (await ui.app.db.query<{ id: string }>('SELECT id FROM tasks WHERE project_id = $1 AND title = $2', [long, title])).rows[0]!.id;
    // both at the head of the backlog, each waiting on a task far down a column, out of the first screenful
    for (const [title, dependency] of [
      ['Waits on a done task', 'Long task 260'],
      ['Waits on the backlog’s last', 'Long task 200'],
    ] as const) {
      const made = await ui.call('POST', '/api/tasks', {
        project_id: long,
        title,
        status: 'backlog',
        priority: 'critical',
        dependency_ids: [await idOf(dependency)],
      });
      expect(made.status).toBe(201);
    }

    const page = await ui.newPage();
    const asked: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // the whole board's request waits until released; the first screenful's goes through
    await page.route(
      (url) => url.pathname === '/api/views/board',
      async (route) => {
        const search = new URL(route.request().url()).searchParams;
        asked.push(search.has('limit_per_column') ? 'first screenful' : 'whole board');
        if (!search.has('limit_per_column')) await held;
        await route.continue();
      },
    );
    await page.goto(`/board?project=${long}`);
    const backlog = column(page, 'Backlog');
    await expect.poll(() => backlog.getByRole('heading', { level: 2 }).textContent()).toBe('Backlog 202');
    expect(await column(page, 'Completed').getByRole('heading', { level: 2 }).textContent()).toBe('Completed 60');
    expect(await column(page, 'Ready').getByRole('heading', { level: 2 }).textContent()).toBe('Ready 0');
    await expect.poll(() => card(page, 'Long task 001').count()).toBe(1);
    expect(await column(page, 'Completed').getByRole('article').first().getByRole('heading', { level: 3 }).textContent()).toBe(
      'Long task 201',
    );
    // the dependencies' statuses came with the first screenful
    expect(await card(page, 'Waits on a done task').locator('.stuck').count()).toBe(0);
    expect(await card(page, 'Waits on the backlog’s last').textContent()).toContain('Waiting on 1 unmet dependency');
    // the whole board is asked for once the first screenful has landed
    await expect.poll(() => asked).toEqual(['first screenful', 'whole board']);

    // the rest of the backlog has not arrived: the column scrolls through fewer than 40 cards of the least height (64 px), not 202
    const scroller = backlog.locator('.column-scroll');
    const heightBefore = await scroller.evaluate((el) => el.scrollHeight);
    expect(heightBefore).toBeLessThan(40 * 64);
    await scroller.evaluate((el) => (el.scrollTop = 150));
    await expect.poll(() => scroller.evaluate((el) => el.scrollTop)).toBe(150);
    const topCard = () =>
      scroller.evaluate((el) => {
        const top = el.getBoundingClientRect().top;
        return Array.from(el.querySelectorAll('article'))
          .find((a) => a.getBoundingClientRect().bottom > top)
          ?.querySelector('h3')?.textContent;
      });
    const seenFirst = await topCard();
    expect(seenFirst).toBeTruthy();

    release();
    // the whole board lands in place: the column grows below, the operator's place and the counts stay
    await expect.poll(() => scroller.evaluate((el) => el.scrollHeight)).toBeGreaterThan(heightBefore * 5);
    expect(await scroller.evaluate((el) => el.scrollTop)).toBe(150);
    expect(await topCard()).toBe(seenFirst);
    expect(await backlog.getByRole('heading', { level: 2 }).textContent()).toBe('Backlog 202');
    expect(await backlog.getByRole('article').count()).toBeLessThan(60);
    expect(await card(page, 'Waits on the backlog’s last').textContent()).toContain('Waiting on 1 unmet dependency');
    expect(await card(page, 'Waits on a done task').locator('.stuck').count()).toBe(0);
    await scroller.evaluate((el) => (el.scrollTop = el.scrollHeight));
    await expect.poll(() => card(page, 'Long task 200').count()).toBe(1);

    // a change the stream brings refetches the whole board only: the first screenful was the opening's
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('Live');
    expect((await ui.call('POST', `/api/tasks/${await idOf('Long task 001')}/move`, { status: 'ready' })).status).toBe(200);
    await expect.poll(() => column(page, 'Ready').getByRole('heading', { level: 2 }).textContent()).toBe('Ready 1');
    expect(asked.filter((a) => a === 'first screenful')).toHaveLength(1);
  });
});

describe('the board as of a moment', () => {
  it('shows the board as it stood at the chosen time, read-only under a banner, and Back to now returns to the live board', async () => {
    const travel = (await ui.call('POST', '/api/projects', { name: 'Time travel' })).body.id as string;
    const made = await ui.call('POST', '/api/tasks', { project_id: travel, title: 'Ready back then', status: 'ready' });
    expect(made.status).toBe(201);
    // its first state is moved an hour back, so a moment half an hour ago falls between it and the changes below
    await ui.app.db.query(
      `UPDATE entity_snapshots SET created_at = created_at - interval '1 hour' WHERE entity_type = 'task' AND entity_id = $1`,
      [made.body.id],
    );
    expect((await ui.call('POST', `/api/tasks/${made.body.id}/move`, { status: 'blocked' })).status).toBe(200);
    expect((await ui.call('POST', '/api/tasks', { project_id: travel, title: 'Created since', status: 'ready' })).status).toBe(201);

    const page = await ui.newPage();
    await page.goto(`/board?project=${travel}`);
    await expect.poll(() => column(page, 'Blocked').getByRole('article', { name: 'Ready back then' }).count()).toBe(1);
    const halfAnHourAgo = new Date(Date.now() - 30 * 60_000);
    halfAnHourAgo.setMilliseconds(0);
    // the control takes the browser's local time, written as Chromium keeps it: a whole minute without
    // its ':00' (fill reads the value back and refuses one the control rewrote)
    const local = await page.evaluate((iso) => {
      const d = new Date(iso);
      const pad = (n: number) => String(n).padStart(2, '0');
      const seconds = d.getSeconds() === 0 ? '' : `:${pad(d.getSeconds())}`;
      return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}${seconds}`;
    }, halfAnHourAgo.toISOString());
    let asOfRequests = 0;
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/api/views/board/as-of') asOfRequests++;
    });
    await page.getByLabel('Board as of').fill(local);
    await page.getByRole('button', { name: 'Show' }).click();

    const banner = page.getByRole('note').filter({ hasText: 'Board as of' });
    await expect.poll(() => banner.count()).toBe(1);
    expect(await banner.textContent()).toContain('read-only');
    expect(new URL(page.url()).searchParams.get('at')).toBe(halfAnHourAgo.toISOString());
    await expect.poll(() => column(page, 'Ready').getByRole('article', { name: 'Ready back then' }).count()).toBe(1);
    expect(await card(page, 'Created since').count()).toBe(0);
    expect(
      await page
        .getByRole('region', { name: /^Blocked \d+$/ })
        .getByRole('article')
        .count(),
    ).toBe(0);
    // read-only: nothing to move or add
    expect(await page.getByRole('button', { name: 'Move to' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Add task' }).count()).toBe(0);
    expect(asOfRequests).toBeGreaterThan(0);
    await expectNoSeriousAxeViolations(page);

    await banner.getByRole('button', { name: 'Back to now' }).click();
    await expect.poll(() => banner.count()).toBe(0);
    expect(new URL(page.url()).searchParams.get('at')).toBeNull();
    await expect.poll(() => column(page, 'Blocked').getByRole('article', { name: 'Ready back then' }).count()).toBe(1);
    expect(await card(page, 'Created since').count()).toBe(1);
  });
});
