/// <reference lib="dom" />
// (the DOM types: page callbacks run in the browser)
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createParser } from 'eventsource-parser';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startBuiltServer } from '../scripts/built-server';
import { bareDb, benchDatabase, report } from './support';

/**
 * The console's board in a real Chromium against `node dist/server.js` (build first):
 * - a change made through the API, seen on the open board: p95 over BENCH_CONSOLE_CHANGES (100)
 *   moves, from the move's request to the card standing in its new column; baseline: the same move's
 *   event parsed by a bare stream reader in this process (what any live client waits for at least);
 * - the requests the page makes while 100 events/s arrive for 10 s (BENCH_CONSOLE_SECONDS), per
 *   second; baseline: the events per second (a page refetching per event would make that many);
 * - the Inbox with 200 items waiting (150 blocked tasks, 50 failed runs): navigation to the frame
 *   that shows all 200 with their buttons, median of five fresh browser contexts; baseline: GET
 *   /api/inbox fetched and parsed inside the page;
 * - a board of BENCH_CONSOLE_BOARD_TASKS (10,000) tasks over the six columns: navigation to the
 *   frame showing its first card, median of five fresh contexts; baseline: GET /api/views/board of
 *   that project fetched and parsed inside the page;
 * - the page's JavaScript heap (CDP Performance.getMetrics, JSHeapUsedSize, after a forced
 *   collection) once every column of that board has been scrolled to its end; baseline: the heap of
 *   a page at the same origin holding only the parsed board JSON.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const changes = Number(process.env.BENCH_CONSOLE_CHANGES ?? 100);
const burstSeconds = Number(process.env.BENCH_CONSOLE_SECONDS ?? 10);
const EVENTS_PER_SECOND = 100;
const boardTasks = Number(process.env.BENCH_CONSOLE_BOARD_TASKS ?? 10_000);
const NAVIGATIONS = 5;
const INBOX_BLOCKED = 150;
const INBOX_FAILED = 50;

const post = (url: string, target: string, body: unknown) =>
  fetch(`${url}${target}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(
    async (r) => {
      if (!r.ok) throw new Error(`${target} answered ${r.status}`);
      return r.json() as Promise<{ id: string }>;
    },
  );

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const p95 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.95))]!;

/** A bare stream reader: resolves each waiter when a task:changed for its task arrives. */
function bareStream(url: string): { opened: Promise<void>; next(taskId: string): Promise<void>; close(): void } {
  const controller = new AbortController();
  const waiting = new Map<string, () => void>();
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  void (async () => {
    const response = await fetch(`${url}/api/events/stream`, { signal: controller.signal });
    open();
    const parser = createParser({
      onEvent(event) {
        if (event.event !== 'task:changed') return;
        const { taskId } = JSON.parse(event.data) as { taskId: string };
        waiting.get(taskId)?.();
        waiting.delete(taskId);
      },
    });
    const decoder = new TextDecoder();
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
  })().catch(() => undefined);
  return { opened, next: (taskId) => new Promise<void>((resolve) => waiting.set(taskId, resolve)), close: () => controller.abort() };
}

/**
 * Milliseconds from the start of a navigation (the page's time origin) to the first animation frame
 * after `shownWhen` (a script expression) holds, in a fresh context each time (nothing cached).
 * The watch is installed before the page's own scripts run, outside its CSP.
 */
export async function navigations(browser: Browser, url: string, shownWhen: string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < NAVIGATIONS; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.addInitScript(`(() => {
      const check = () => {
        if (window.__shownAt !== undefined || !(${shownWhen})) return;
        window.__shownAt = -1;
        requestAnimationFrame(() => (window.__shownAt = performance.now()));
      };
      new MutationObserver(check).observe(document, { childList: true, subtree: true });
    })()`);
    await page.goto(url);
    await page.waitForFunction(() => ((window as unknown as { __shownAt?: number }).__shownAt ?? -1) > 0, undefined, { timeout: 120_000 });
    times.push(await page.evaluate(() => (window as unknown as { __shownAt: number }).__shownAt));
    await context.close();
  }
  return times;
}

/** Median milliseconds of fetching `target` and parsing its JSON inside a page of the console's origin. */
export async function fetchInPage(browser: Browser, origin: string, target: string): Promise<number> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${origin}/config.json`);
  const times: number[] = [];
  for (let i = 0; i < NAVIGATIONS; i++) {
    times.push(
      await page.evaluate(async (path) => {
        const started = performance.now();
        await (await fetch(path)).json();
        return performance.now() - started;
      }, target),
    );
  }
  await context.close();
  return median(times);
}

async function usedHeapMb(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  await cdp.send('HeapProfiler.collectGarbage');
  const { metrics } = await cdp.send('Performance.getMetrics');
  return (metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? Number.NaN) / 1024 / 1024;
}

/** The page's heap once each column of the board has been scrolled, a screenful at a time, to its end. */
async function heapAfterScrolling(browser: Browser, boardUrl: string): Promise<number> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(boardUrl);
  await page.locator('section.board-column article').first().waitFor({ timeout: 120_000 });
  await page.evaluate(async () => {
    // (no named function in here: tsx would wrap it in a helper the page does not have)
    for (const scroller of Array.from(document.querySelectorAll<HTMLElement>('.column-scroll'))) {
      while (scroller.scrollTop + scroller.clientHeight < scroller.scrollHeight - 1) {
        scroller.scrollTop += scroller.clientHeight;
        await new Promise((resolve) => requestAnimationFrame(resolve));
      }
    }
  });
  const heap = await usedHeapMb(page);
  await context.close();
  return heap;
}

/** The heap of a page at the console's origin that holds the parsed board JSON and nothing else of the console. */
async function heapOfBoardJson(browser: Browser, origin: string, project: string): Promise<number> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${origin}/config.json`);
  await page.evaluate(async (path) => {
    (window as unknown as { board: unknown }).board = await (await fetch(path)).json();
  }, `/api/views/board?project_id=${project}`);
  const heap = await usedHeapMb(page);
  await context.close();
  return heap;
}

export async function run(): Promise<void> {
  try {
    await stat(path.join(root, 'dist/console/index.html'));
  } catch {
    console.log('console-board: skipped (no dist/console/: run npm run build first)');
    return;
  }
  const database = await benchDatabase();
  const server = await startBuiltServer({ DATABASE_URL: database.url, DATA_DIR: database.dataDir, LOG_LEVEL: 'ERROR' });
  const { default: sparticuz } = await import('@sparticuz/chromium');
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? (await sparticuz.executablePath()),
    args: ['--no-sandbox', '--disable-gpu'],
  });
  try {
    const project = (await post(server.url, '/api/projects', { name: 'Bench board' })).id;
    const tasks: string[] = [];
    // few enough that every card of a column is within the rendered (virtualized) range
    for (let i = 0; i < 8; i++)
      tasks.push((await post(server.url, '/api/tasks', { project_id: project, title: `Bench card ${i}`, status: 'backlog' })).id);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${server.url}/board?project=${project}`);
    await page.getByRole('status').first().filter({ hasText: 'Live' }).waitFor();
    await page.getByRole('article').first().waitFor();
    const stream = bareStream(server.url);
    await stream.opened;

    const seen: number[] = [];
    const streamed: number[] = [];
    const statuses = ['ready', 'backlog'];
    for (let i = 0; i < changes; i++) {
      const task = tasks[i % tasks.length]!;
      const status = statuses[Math.floor(i / tasks.length) % 2]!;
      const arrived = stream.next(task);
      const started = performance.now();
      const shown = page.waitForFunction(
        ([id, column]) =>
          Boolean(document.querySelector(`section[aria-labelledby="column-${column}"] article[aria-labelledby="card-${id}"]`)),
        [task, status] as const,
        { polling: 'raf' },
      );
      await post(server.url, `/api/tasks/${task}/move`, { status });
      await arrived;
      streamed.push(performance.now() - started);
      await shown;
      seen.push(performance.now() - started);
    }
    report(
      'console: API move seen on the board p95',
      p95(seen),
      p95(streamed),
      'ms',
      `(${changes} moves, median ${median(seen).toFixed(0)} ms; baseline: the event at a bare stream reader)`,
    );

    let requests = 0;
    const byPath = new Map<string, number>();
    page.on('request', (r) => {
      const { pathname } = new URL(r.url());
      if (!pathname.startsWith('/api/') || pathname.startsWith('/api/events')) return;
      requests++;
      byPath.set(pathname, (byPath.get(pathname) ?? 0) + 1);
    });
    const burstStarted = Date.now();
    const end = burstStarted + burstSeconds * 1000;
    let sent = 0;
    while (Date.now() < end) {
      const tick = Date.now();
      await Promise.all(
        Array.from({ length: EVENTS_PER_SECOND / 10 }, (_, k) =>
          post(server.url, `/api/tasks/${tasks[(sent + k) % tasks.length]}/move`, { status: statuses[(sent + k) % 2] }),
        ),
      );
      sent += EVENTS_PER_SECOND / 10;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 100 - (Date.now() - tick))));
    }
    // the last batch may end after the nominal seconds: the rate is over the time it really took
    const counted = requests;
    const elapsed = (Date.now() - burstStarted) / 1000;
    report(
      'console: board requests/s under events',
      counted / elapsed,
      sent / elapsed,
      '/s',
      `(${counted} requests = ${(counted / elapsed).toFixed(2)}/s: ${[...byPath].map(([p, n]) => `${n} ${p}`).join(', ')}; ${sent} changes in ${elapsed.toFixed(2)} s; goal <= 1 request/s)`,
    );
    await page.close();

    const raw = bareDb(database.url);
    try {
      const inboxProject = (await post(server.url, '/api/projects', { name: 'Bench inbox' })).id;
      await raw.query(
        `INSERT INTO tasks (id, project_id, title, status, priority, metadata)
         SELECT gen_random_uuid(), $1, 'Inbox bench task ' || g, CASE WHEN g <= ${INBOX_BLOCKED} THEN 'blocked' ELSE 'ready' END, 'medium',
                CASE WHEN g <= ${INBOX_BLOCKED} THEN jsonb_build_object('blocked_reason', 'waiting on bench ' || g) ELSE '{}'::jsonb END
           FROM generate_series(1, ${INBOX_BLOCKED + INBOX_FAILED}) g`,
        [inboxProject],
      );
      await raw.query(
        `INSERT INTO workflow_runs (id, workflow_type, task_id, status, last_error)
         SELECT gen_random_uuid(), 'bench', t.id, 'failed', 'bench failure' FROM tasks t WHERE t.project_id = $1 AND t.status = 'ready'`,
        [inboxProject],
      );
      const items = INBOX_BLOCKED + INBOX_FAILED;
      const inboxShown = await navigations(
        browser,
        `${server.url}/`,
        `document.querySelectorAll('ul.inbox-list > li').length >= ${items} && document.querySelectorAll('ul.inbox-list button').length > 0`,
      );
      const inboxFetched = await fetchInPage(browser, server.url, '/api/inbox?limit=200');
      report(
        'console: Inbox of 200 items to interactive',
        median(inboxShown),
        inboxFetched,
        'ms',
        `(median of ${NAVIGATIONS} navigations; baseline: GET /api/inbox fetched and parsed in the page; goal <= 1000 ms)`,
      );

      const bigProject = (await post(server.url, '/api/projects', { name: 'Bench big board' })).id;
      await raw.query(
        `INSERT INTO tasks (id, project_id, title, status, priority, owner, labels, created_at, updated_at)
         SELECT gen_random_uuid(), $1, 'Board bench task ' || g || ' ' || md5(g::text),
                (ARRAY['backlog','ready','in_progress','blocked','review','completed'])[1 + g % 6],
                (ARRAY['low','medium','high','critical'])[1 + g % 4], 'agent-' || (g % 40), ARRAY['bench', 'label-' || (g % 7)],
                now() - g * interval '1 second', now() - g * interval '1 second'
           FROM generate_series(1, ${boardTasks}) g`,
        [bigProject],
      );
      await raw.query('ANALYZE tasks');
      const boardUrl = `${server.url}/board?project=${bigProject}`;
      const firstCard = await navigations(browser, boardUrl, `document.querySelector('section.board-column article') !== null`);
      // the very request the page makes (the board with its stuck reasons)
      const boardFetched = await fetchInPage(browser, server.url, `/api/views/board?project_id=${bigProject}&include=stuck`);
      report(
        `console: ${boardTasks}-task board to first card`,
        median(firstCard),
        boardFetched,
        'ms',
        `(median of ${NAVIGATIONS} navigations; baseline: the board JSON fetched and parsed in the page; goal <= 1.5x)`,
      );

      const [scrolledHeap, dataHeap] = [
        await heapAfterScrolling(browser, boardUrl),
        await heapOfBoardJson(browser, server.url, bigProject),
      ];
      report(
        `console: heap after scrolling ${boardTasks}-task board`,
        scrolledHeap,
        dataHeap,
        'MB',
        '(JSHeapUsedSize after a forced collection; baseline: a page holding only the parsed board JSON; goal <= 100 MB)',
      );
    } finally {
      await raw.close();
    }
  } finally {
    await browser.close();
    await server.stop();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await database.close();
  }
}
