/// <reference lib="dom" />
// (the DOM types: page callbacks run in the browser)
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { startBuiltServer } from '../scripts/built-server';
import { turnLines, writeLongTranscript } from '../test/fixtures/runtime/long-transcript';
import { benchDatabase, report } from './support';

/**
 * The console's transcript viewer in a real Chromium against `node dist/server.js` (build first),
 * on the session page (/sessions/:id) of a transcript of BENCH_TRANSCRIPT_MB (20) MB:
 * - navigation to the frame showing its first messages, median of five fresh browser contexts;
 *   baseline: the two reads the page needs before it can draw them (the session's entry in the
 *   runtime's indexes, then the first page of events), fetched and parsed inside a page of the
 *   same origin;
 * - the same transcript scrolled to its end: from a click on "Go to end" in an opened page to the
 *   frame showing its last line, median of five; baseline: the last page of events fetched and
 *   parsed inside a page.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const megabytes = Number(process.env.BENCH_TRANSCRIPT_MB ?? 20);
const NAVIGATIONS = 5;
const SESSION = 'sess-bench-transcript';
/** The viewer's page of events (console/src/transcript-data.ts EVENTS_PER_READ, LINES_PER_READ). */
const EVENTS_PER_READ = 200;
const LINES_PER_READ = 100;
const RESULT_BYTES = 4000;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The page's script that waits for `selector` to match, then for the next frame; resolves with the ms since `started`. */
const shownAfter = (selector: string) => `new Promise((resolve) => {
  const started = window.__started ?? 0;
  const observer = new MutationObserver(() => {
    if (!document.querySelector(${JSON.stringify(selector)})) return;
    observer.disconnect();
    requestAnimationFrame(() => resolve(performance.now() - started));
  });
  observer.observe(document, { childList: true, subtree: true });
  if (document.querySelector(${JSON.stringify(selector)})) { observer.disconnect(); requestAnimationFrame(() => resolve(performance.now() - started)); }
})`;

/** Milliseconds from the navigation's start (the page's time origin) to the first frame showing `selector`, in fresh contexts. */
async function navigations(browser: Browser, url: string, selector: string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < NAVIGATIONS; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.addInitScript(`window.__shown = ${shownAfter(selector)};`);
    await page.goto(url);
    times.push(await page.evaluate('window.__shown'));
    await context.close();
  }
  return times;
}

/** Milliseconds from a click on "Go to end" to the first frame showing the last line, each in a freshly opened page. */
async function toTheEnd(browser: Browser, url: string, lastLine: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < NAVIGATIONS; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(url);
    await page.locator('article.user .message-text').first().waitFor({ timeout: 120_000 });
    await page.getByRole('button', { name: 'Go to end' }).waitFor();
    times.push(
      await page.evaluate(`(() => {
        window.__started = performance.now();
        const shown = ${shownAfter(`article[data-line="${lastLine}"]`)};
        Array.from(document.querySelectorAll('button')).find((b) => b.textContent === 'Go to end').click();
        return shown;
      })()`),
    );
    await context.close();
  }
  return times;
}

/** Median milliseconds of fetching and parsing `targets` one after another inside a page of the console's origin. */
async function fetchInPage(browser: Browser, origin: string, targets: string[]): Promise<number> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${origin}/config.json`);
  const times: number[] = [];
  for (let i = 0; i < NAVIGATIONS; i++) {
    times.push(
      await page.evaluate(async (paths) => {
        const started = performance.now();
        for (const target of paths) await (await fetch(target)).json();
        return performance.now() - started;
      }, targets),
    );
  }
  await context.close();
  return median(times);
}

export async function run(): Promise<void> {
  try {
    await stat(path.join(root, 'dist/console/index.html'));
  } catch {
    console.log('console-transcript: skipped (no dist/console/: run npm run build first)');
    return;
  }
  const stateDir = await mkdtemp(path.join(os.tmpdir(), 'bench-transcript-'));
  const turnBytes = turnLines(0, RESULT_BYTES).join('\n').length + 1;
  const transcript = writeLongTranscript({ stateDir, sessionId: SESSION, turns: Math.ceil((megabytes * 1024 * 1024) / turnBytes), resultBytes: RESULT_BYTES });
  const bytes = (await stat(transcript.file)).size;
  const database = await benchDatabase();
  const server = await startBuiltServer({
    DATABASE_URL: database.url,
    DATA_DIR: database.dataDir,
    LOG_LEVEL: 'ERROR',
    RUNTIME_STATE_DIR: stateDir,
    // the whole file is read (the default cap is 20 MB)
    SESSION_REPLAY_MAX_BYTES: String(bytes * 2),
  });
  const { default: sparticuz } = await import('@sparticuz/chromium');
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? (await sparticuz.executablePath()), args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const size = `${(bytes / 1024 / 1024).toFixed(1)} MB, ${transcript.lines} lines`;
    const pageUrl = `${server.url}/sessions/${SESSION}`;
    const events = (afterLine: number) => `/api/rt/sessions/${SESSION}/events?agent=main&afterLine=${afterLine}&limit=${EVENTS_PER_READ}`;
    const opened = await navigations(browser, pageUrl, 'article.user .message-text');
    const firstReads = await fetchInPage(browser, server.url, ['/api/rt/sessions?all=true', events(0)]);
    report(`console: ${megabytes} MB transcript to first messages`, median(opened), firstReads, 'ms', `(${size}; median of ${NAVIGATIONS} navigations, the first reading the file cold; baseline: the session list and the first page of events fetched and parsed in the page; goal <= 1000 ms)`);

    const lastPage = Math.floor((transcript.lines - 1) / LINES_PER_READ) * LINES_PER_READ;
    const ended = await toTheEnd(browser, pageUrl, transcript.lines);
    const lastRead = await fetchInPage(browser, server.url, [events(lastPage)]);
    report(`console: ${megabytes} MB transcript scrolled to its end`, median(ended), lastRead, 'ms', `(median of ${NAVIGATIONS}, from the click on "Go to end" to its last line drawn; baseline: the last page of events fetched and parsed in the page; goal <= 1000 ms)`);
  } finally {
    await browser.close();
    await server.stop();
    await database.close();
    await rm(stateDir, { recursive: true, force: true });
  }
}
