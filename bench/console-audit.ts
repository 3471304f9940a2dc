import { stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startBuiltServer } from '../scripts/built-server';
import { fetchInPage, median, navigations } from './console-board';
import { bareDb, benchDatabase, report } from './support';

/**
 * The console's Audit screen in a real Chromium against `node dist/server.js` (build first), over
 * BENCH_CONSOLE_AUDIT_ROWS (1,000,000) audit rows generated in SQL and indexed for text search as a
 * dispatcher pass leaves them (every row folded into audit_search, its trigram index built once
 * after the load, docs/adr/0008-deferred-audit-search.md): navigation to /audit with a search in the
 * URL until the frame showing the first record of its first page, median of five fresh contexts,
 * for a search by actor and a range of days and for a text search; baseline: the same search's
 * JSON (the request the page makes) fetched and parsed inside a page of the same origin.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const auditRows = Number(process.env.BENCH_CONSOLE_AUDIT_ROWS ?? 1_000_000);

export async function run(): Promise<void> {
  try {
    await stat(path.join(root, 'dist/console/index.html'));
  } catch {
    console.log('console-audit: skipped (no dist/console/: run npm run build first)');
    return;
  }
  const database = await benchDatabase();
  // the server migrates the database as it starts; the rows are loaded behind it
  const server = await startBuiltServer({ DATABASE_URL: database.url, DATA_DIR: database.dataDir, LOG_LEVEL: 'ERROR' });
  const raw = bareDb(database.url);
  const started = Date.now();
  // the trigram index is rebuilt once after the bulk load instead of being maintained row by row
  await raw.query('DROP INDEX audit_search_text_trgm');
  await raw.query(
    `INSERT INTO audit_log (timestamp, actor, action, entity_type, entity_id, old_value, new_value)
     SELECT timestamptz '2031-06-30T00:00:00Z' - g * interval '1 second', 'agent-' || (g % 300),
            (ARRAY['created','updated','status_changed','claimed'])[1 + g % 4], 'task', g::text,
            jsonb_build_object('status', 'ready'), jsonb_build_object('title', 'bench row ' || g, 'status', 'in_progress', 'tag', md5(g::text))
       FROM generate_series(1, ${auditRows}) g`,
  );
  await raw.query('SELECT audit_search_fold(2147483647)');
  await raw.query('CREATE INDEX audit_search_text_trgm ON audit_search USING gin (search_text gin_trgm_ops)');
  await raw.query('ANALYZE');
  console.log(
    `console-audit bench: ${auditRows.toLocaleString('en-US')} audit rows generated and indexed in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  await raw.close();

  const { default: sparticuz } = await import('@sparticuz/chromium');
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? (await sparticuz.executablePath()),
    args: ['--no-sandbox', '--disable-gpu'],
  });
  try {
    // the days lie inside the generated span (about 11.6 days before 2031-06-30 for a million rows)
    const searches: Array<[string, URLSearchParams]> = [
      ['actor and days', new URLSearchParams({ actor: 'agent-42', start_date: '2031-06-25', end_date: '2031-06-27' })],
      ['text', new URLSearchParams({ q: 'bench row 4242' })],
    ];
    for (const [name, search] of searches) {
      const shown = await navigations(browser, `${server.url}/audit?${search}`, `document.querySelector('.audit-list li') !== null`);
      // the very request the page makes for the first page
      const fetched = await fetchInPage(browser, server.url, `/api/audit?${search}&limit=100&offset=0`);
      report(
        `console: audit search (${name}), first page shown`,
        median(shown),
        fetched,
        'ms',
        `(${auditRows.toLocaleString('en-US')} audit rows; median of 5 navigations; baseline: the same search's JSON fetched and parsed in the page; goal <= 500 ms)`,
      );
    }
  } finally {
    await browser.close();
    await server.stop();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await database.close();
  }
}
