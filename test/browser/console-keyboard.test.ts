/// <reference lib="dom" />
// (the DOM types: page.evaluate callbacks run in the browser)
import { beforeAll, describe, expect, it } from 'vitest';
import { useConsole } from '../support/console-browser';

/** The palette and the shortcuts, by keyboard alone; and the stream's changes merged into few refetches. */
const ui = useConsole();
let projectId: string;

beforeAll(async () => {
  projectId = (await ui.call('POST', '/api/projects', { name: 'Keyboard' })).body.id;
  for (const title of ['First card', 'Second card', 'Third card'])
    await ui.call('POST', '/api/tasks', { project_id: projectId, title, status: 'ready' });
});

describe('keyboard', () => {
  it('opens the Command palette with Ctrl+K, goes to a screen, and creates a task from it', async () => {
    const page = await ui.newPage();
    await page.goto('/runs');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Runs');
    await page.keyboard.press('Control+k');
    const palette = page.getByRole('dialog', { name: 'Command palette' });
    await expect.poll(() => palette.isVisible()).toBe(true);
    await page.keyboard.type('board');
    await expect.poll(() => palette.getByRole('option', { name: 'Go to Board' }).getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('Enter');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/board');
    // the dialog closes on the render after the route changes
    await expect.poll(() => palette.isVisible()).toBe(false);

    await page.keyboard.press('Meta+k');
    // typing starts once the palette's field has the focus (it takes it on the render that opens it)
    await expect.poll(() => page.evaluate(() => document.activeElement?.closest('dialog') != null)).toBe(true);
    await page.keyboard.type('Made in the palette');
    const create = palette.getByRole('option', { name: 'Create task “Made in the palette”' });
    await expect.poll(() => create.count()).toBe(1);
    while ((await create.getAttribute('aria-selected')) !== 'true') await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Made in the palette');
    const { rows } = await ui.app.db.query<{ n: string }>(`SELECT count(*) AS n FROM tasks WHERE title = 'Made in the palette'`);
    expect(Number(rows[0]!.n)).toBe(1);
  });

  it('goes to the Board with g b and to the Inbox with g i, lists the shortcuts with ?, and walks a list with j and k', async () => {
    const page = await ui.newPage();
    await page.goto('/runs');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Runs');
    await page.keyboard.press('g');
    await page.keyboard.press('b');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/board');
    await page.getByRole('combobox', { name: 'Project', exact: true }).selectOption(projectId);
    await expect.poll(() => page.getByRole('article').count()).toBeGreaterThanOrEqual(3);
    await page.locator('body').click({ position: { x: 1, y: 1 } });
    await page.keyboard.press('j');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-labelledby') ?? '')).toMatch(/^card-/);
    const first = await page.evaluate(() => document.activeElement?.textContent ?? '');
    await page.keyboard.press('j');
    const second = await page.evaluate(() => document.activeElement?.textContent ?? '');
    expect(second).not.toBe(first);
    await page.keyboard.press('k');
    expect(await page.evaluate(() => document.activeElement?.textContent ?? '')).toBe(first);
    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await expect.poll(() => help.isVisible()).toBe(true);
    expect(await help.textContent()).toContain('go to the Board');
    await page.keyboard.press('Escape');
    await expect.poll(() => help.isVisible()).toBe(false);
    await page.keyboard.press('g');
    await page.keyboard.press('i');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/');
  });

  it('merges a burst of stream events into a few refetches of the board, never two at once', async () => {
    const page = await ui.newPage();
    let boardRequests = 0;
    let inFlight = 0;
    let overlapping = 0;
    page.on('request', (r) => {
      if (new URL(r.url()).pathname !== '/api/views/board') return;
      boardRequests++;
      inFlight++;
      if (inFlight > 1) overlapping++;
    });
    const ended = () => {
      inFlight = Math.max(0, inFlight - 1);
    };
    page.on('requestfinished', (r) => new URL(r.url()).pathname === '/api/views/board' && ended());
    page.on('requestfailed', (r) => new URL(r.url()).pathname === '/api/views/board' && ended());
    await page.goto(`/board?project=${projectId}`);
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('Live');
    await expect.poll(() => page.getByRole('article').count()).toBeGreaterThan(0);
    const before = boardRequests;
    const started = Date.now();
    for (let i = 0; i < 40; i++) await ui.call('POST', '/api/tasks', { project_id: projectId, title: `Burst ${i}`, status: 'backlog' });
    const seconds = (Date.now() - started) / 1000;
    await expect
      .poll(() =>
        page
          .getByRole('region', { name: /^Backlog \d+$/ })
          .getByRole('heading', { level: 2 })
          .textContent(),
      )
      .toMatch(/^Backlog 4[01]$/);
    const refetches = boardRequests - before;
    // at most one per merge window (250 ms) while the burst lasted, plus the one after it
    expect(refetches).toBeGreaterThan(0);
    expect(refetches).toBeLessThanOrEqual(Math.ceil(seconds / 0.25) + 2);
    expect(refetches).toBeLessThan(40);
    expect(overlapping).toBe(0);
  });
});

describe('the palette’s task finder', () => {
  it('finds a task that is on no screen (another project) through GET /api/tasks/search, and opens it', async () => {
    const elsewhere = (await ui.call('POST', '/api/projects', { name: 'Elsewhere' })).body.id as string;
    const hidden = await ui.call('POST', '/api/tasks', {
      project_id: elsewhere,
      title: 'Renew the TLS certificate of the haystack',
      status: 'backlog',
    });
    expect(hidden.status).toBe(201);
    const page = await ui.newPage();
    await page.goto(`/board?project=${projectId}`);
    await expect.poll(() => page.getByRole('article').count()).toBeGreaterThan(0);
    expect(await page.getByText('Renew the TLS certificate of the haystack').count()).toBe(0);
    const searches: string[] = [];
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (url.pathname === '/api/tasks/search') searches.push(url.searchParams.get('q') ?? '');
    });
    await page.keyboard.press('Control+k');
    const palette = page.getByRole('dialog', { name: 'Command palette' });
    await expect.poll(() => page.evaluate(() => document.activeElement?.closest('dialog') != null)).toBe(true);
    await page.keyboard.type('tls certificate');
    const found = palette.getByRole('option', { name: /^Renew the TLS certificate of the haystack/ });
    await expect.poll(() => found.count()).toBe(1);
    expect(await found.textContent()).toContain('Elsewhere');
    expect(searches).toContain('tls certificate');
    while ((await found.getAttribute('aria-selected')) !== 'true') await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/tasks/${hidden.body.id}`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Renew the TLS certificate of the haystack');
  });
});
