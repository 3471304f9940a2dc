/// <reference lib="dom" />
// (the DOM types: page callbacks run in the browser)
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createParser } from 'eventsource-parser';
import { chromium } from 'playwright-core';
import { startBuiltServer } from '../scripts/built-server';
import { benchDatabase, report } from './support';

/**
 * The console's board in a real Chromium against `node dist/server.js` (build first):
 * - a change made through the API, seen on the open board: p95 over BENCH_CONSOLE_CHANGES (100)
 *   moves, from the move's request to the card standing in its new column; baseline: the same move's
 *   event parsed by a bare stream reader in this process (what any live client waits for at least);
 * - the requests the page makes while 100 events/s arrive for 10 s (BENCH_CONSOLE_SECONDS), per
 *   second; baseline: the events per second (a page refetching per event would make that many).
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const changes = Number(process.env.BENCH_CONSOLE_CHANGES ?? 100);
const burstSeconds = Number(process.env.BENCH_CONSOLE_SECONDS ?? 10);
const EVENTS_PER_SECOND = 100;

const post = (url: string, target: string, body: unknown) =>
  fetch(`${url}${target}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(async (r) => {
    if (!r.ok) throw new Error(`${target} answered ${r.status}`);
    return r.json() as Promise<{ id: string }>;
  });

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
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? (await sparticuz.executablePath()), args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const project = (await post(server.url, '/api/projects', { name: 'Bench board' })).id;
    const tasks: string[] = [];
    // few enough that every card of a column is within the rendered (virtualized) range
    for (let i = 0; i < 8; i++) tasks.push((await post(server.url, '/api/tasks', { project_id: project, title: `Bench card ${i}`, status: 'backlog' })).id);
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
        ([id, column]) => Boolean(document.querySelector(`section[aria-labelledby="column-${column}"] article[aria-labelledby="card-${id}"]`)),
        [task, status] as const,
        { polling: 'raf' },
      );
      await post(server.url, `/api/tasks/${task}/move`, { status });
      await arrived;
      streamed.push(performance.now() - started);
      await shown;
      seen.push(performance.now() - started);
    }
    report('console: API move seen on the board p95', p95(seen), p95(streamed), 'ms', `(${changes} moves; baseline: the event at a bare stream reader)`);

    let requests = 0;
    page.on('request', (r) => {
      if (new URL(r.url()).pathname.startsWith('/api/') && !r.url().includes('/api/events')) requests++;
    });
    const end = Date.now() + burstSeconds * 1000;
    let sent = 0;
    while (Date.now() < end) {
      const tick = Date.now();
      await Promise.all(Array.from({ length: EVENTS_PER_SECOND / 10 }, (_, k) => post(server.url, `/api/tasks/${tasks[(sent + k) % tasks.length]}/move`, { status: statuses[(sent + k) % 2] })));
      sent += EVENTS_PER_SECOND / 10;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 100 - (Date.now() - tick))));
    }
    const elapsed = burstSeconds;
    report('console: board requests/s under events', requests / elapsed, sent / elapsed, '/s', `(${sent} changes in ${elapsed} s; goal <= 1 request/s)`);
  } finally {
    await browser.close();
    await server.stop();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await database.close();
  }
}
