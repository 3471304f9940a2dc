/// <reference lib="dom" />
// (the DOM types: page callbacks run in the browser)
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { startBuiltServer } from '../scripts/built-server';
import { turnLines, writeLongTranscript } from '../test/fixtures/runtime/long-transcript';
import { fetchInPage, median, navigations } from './console-board';
import { benchDatabase, report } from './support';

/**
 * The console's transcript viewer in a real Chromium against `node dist/server.js` (build first),
 * over a transcript of BENCH_TRANSCRIPT_MB (20) MB:
 * - the run page (/runs/:id) of a run whose session is that transcript: navigation to the frame
 *   showing the transcript's first messages, median of five; baseline: the three reads it waits on
 *   (the run page, the session's entry, the first page of events), each fetched and parsed inside a
 *   page of the same origin (the sum of their medians);
 * and on the session page (/sessions/:id):
 * - navigation to the frame showing its first messages, median of five fresh browser contexts;
 *   baseline: the two reads the page needs before it can draw them (the session's entry in the
 *   runtime's indexes, then the first page of events), each fetched and parsed inside a page of the
 *   same origin (the sum of their medians);
 * - the same transcript scrolled to its end: from a click on "Go to end" in an opened page to the
 *   frame showing its last line, median of five; baseline: the last page of events fetched and
 *   parsed inside a page.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const megabytes = Number(process.env.BENCH_TRANSCRIPT_MB ?? 20);
/** As console-board.ts's navigations: the median of this many. */
const RUNS = 5;
const SESSION = 'sess-bench-transcript';
/** The viewer's page of events (console/src/transcript-data.ts EVENTS_PER_READ, LINES_PER_READ). */
const EVENTS_PER_READ = 200;
const LINES_PER_READ = 100;
const RESULT_BYTES = 4000;

/** The page's script that waits for `selector` to match, then for the next frame; resolves with the ms since `window.__started`. */
const shownAfter = (selector: string) => `new Promise((resolve) => {
  const started = window.__started;
  const observer = new MutationObserver(() => {
    if (!document.querySelector(${JSON.stringify(selector)})) return;
    observer.disconnect();
    requestAnimationFrame(() => resolve(performance.now() - started));
  });
  observer.observe(document, { childList: true, subtree: true });
})`;

/** Milliseconds from a click on "Go to end" to the first frame showing the last line, each in a freshly opened page. */
/** A run of a workflow routed to the transcript's agent, started by the session that wrote it (as an agent starts a run it holds). */
async function runOfSession(origin: string, agentId: string, sessionKey: string): Promise<string> {
  const call = async (method: string, route: string, body: unknown) => {
    const res = await fetch(`${origin}${route}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, unknown>;
  };
  await call('POST', '/api/workflow-templates', { name: 'bench-transcript', steps: ['write'] });
  await call('PUT', '/api/workflow-routing/bench-transcript', { agent_id: agentId });
  const { id } = (await call('POST', '/api/workflow-runs', { workflow_type: 'bench-transcript' })) as { id: string };
  await call('POST', `/api/workflow-runs/${id}/start`, {});
  await call('POST', `/api/workflow-runs/${id}/claim`, { agent_id: agentId, session_id: sessionKey });
  await call('POST', `/api/workflow-runs/${id}/start`, { session_id: sessionKey });
  return id;
}

async function toTheEnd(browser: Browser, url: string, lastLine: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
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

export async function run(): Promise<void> {
  try {
    await stat(path.join(root, 'dist/console/index.html'));
  } catch {
    console.log('console-transcript: skipped (no dist/console/: run npm run build first)');
    return;
  }
  const stateDir = await mkdtemp(path.join(os.tmpdir(), 'bench-transcript-'));
  const turnBytes = turnLines(0, RESULT_BYTES).join('\n').length + 1;
  const transcript = writeLongTranscript({
    stateDir,
    sessionId: SESSION,
    turns: Math.ceil((megabytes * 1024 * 1024) / turnBytes),
    resultBytes: RESULT_BYTES,
  });
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
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? (await sparticuz.executablePath()),
    args: ['--no-sandbox', '--disable-gpu'],
  });
  try {
    const size = `${(bytes / 1024 / 1024).toFixed(1)} MB, ${transcript.lines} lines`;
    const pageUrl = `${server.url}/sessions/${SESSION}`;
    const events = (afterLine: number) => `/api/rt/sessions/${SESSION}/events?agent=main&afterLine=${afterLine}&limit=${EVENTS_PER_READ}`;
    const firstMessages = `document.querySelector('article.user .message-text') !== null`;
    const run = await runOfSession(server.url, transcript.agentId, transcript.key);
    const onRunPage = await navigations(browser, `${server.url}/runs/${run}`, firstMessages);
    const runPageReads =
      (await fetchInPage(browser, server.url, `/api/workflow-runs/${run}/page`)) +
      (await fetchInPage(browser, server.url, '/api/rt/sessions?all=true')) +
      (await fetchInPage(browser, server.url, events(0)));
    report(
      `console: run page, ${megabytes} MB transcript to first messages`,
      median(onRunPage),
      runPageReads,
      'ms',
      `(${size}; median of ${RUNS} navigations to /runs/:id; baseline: the run page, the session list and the first page of events fetched and parsed in the page; goal <= 1000 ms)`,
    );

    const opened = await navigations(browser, pageUrl, firstMessages);
    // the page makes them one after the other: the session's agent first
    const firstReads =
      (await fetchInPage(browser, server.url, '/api/rt/sessions?all=true')) + (await fetchInPage(browser, server.url, events(0)));
    report(
      `console: ${megabytes} MB transcript to first messages`,
      median(opened),
      firstReads,
      'ms',
      `(${size}; median of ${RUNS} navigations, the first reading the file cold; baseline: the session list and the first page of events fetched and parsed in the page; goal <= 1000 ms)`,
    );

    const lastPage = Math.floor((transcript.lines - 1) / LINES_PER_READ) * LINES_PER_READ;
    const ended = await toTheEnd(browser, pageUrl, transcript.lines);
    const lastRead = await fetchInPage(browser, server.url, events(lastPage));
    report(
      `console: ${megabytes} MB transcript scrolled to its end`,
      median(ended),
      lastRead,
      'ms',
      `(median of ${RUNS}, from the click on "Go to end" to its last line drawn; baseline: the last page of events fetched and parsed in the page; goal <= 1000 ms)`,
    );
  } finally {
    await browser.close();
    await server.stop();
    await database.close();
    await rm(stateDir, { recursive: true, force: true });
  }
}
