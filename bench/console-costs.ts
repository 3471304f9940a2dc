import { stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startBuiltServer } from '../scripts/built-server';
import { fetchInPage, median, navigations } from './console-board';
import { bareDb, benchDatabase, report } from './support';

/**
 * The console's Costs screen over BENCH_COSTS_PAGE_RUNS (1,000,000) runs in a real Chromium
 * against `node dist/server.js` (build first): navigation to /costs until every budget's burn-down
 * is drawn (its uPlot canvas in place), median of five fresh browser contexts; baseline: GET
 * /api/budgets/burn-down (the screen's one read of them) fetched and parsed inside the page. The
 * runs are spread over the last 60 days across 50 agents, 10 departments and 20 projects, with 40
 * live runs reserving room, under 8 budgets of every scope and period.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = Number(process.env.BENCH_COSTS_PAGE_RUNS ?? 1_000_000);
const BUDGETS = 8;

export async function run(): Promise<void> {
  try {
    await stat(path.join(root, 'dist/console/index.html'));
  } catch {
    console.log('console-costs: skipped (no dist/console/: run npm run build first)');
    return;
  }
  const database = await benchDatabase();
  const server = await startBuiltServer({ DATABASE_URL: database.url, DATA_DIR: database.dataDir, LOG_LEVEL: 'ERROR' });
  const raw = bareDb(database.url);
  const { default: sparticuz } = await import('@sparticuz/chromium');
  // under the C locale Chromium's navigator.language is 'en-US@posix', which Intl refuses (uPlot formats numbers with it)
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? (await sparticuz.executablePath()),
    args: ['--no-sandbox', '--disable-gpu'],
    env: { ...process.env, LANG: 'en_US.UTF-8' },
  });
  try {
    console.log(`console-costs: seeding ${RUNS} runs…`);
    // the budgets below are the only ones (an earlier scenario may have left others in a shared database)
    await raw.query('TRUNCATE budgets CASCADE');
    await raw.query(
      `INSERT INTO departments (id, name) SELECT 'cdept-' || d, 'Department ' || d FROM generate_series(0, 9) d ON CONFLICT DO NOTHING`,
    );
    await raw.query(
      `INSERT INTO agent_profiles (agent_id, department_id) SELECT 'cagent-' || a, 'cdept-' || (a % 10) FROM generate_series(0, 49) a
       ON CONFLICT (agent_id) DO UPDATE SET department_id = excluded.department_id`,
    );
    await raw.query(
      `INSERT INTO projects (id, name) SELECT ('00000000-0000-4000-a000-' || lpad(p::text, 12, '0'))::uuid, 'Costs ' || p FROM generate_series(0, 19) p`,
    );
    await raw.query(
      `INSERT INTO tasks (id, project_id, title)
       SELECT ('00000000-0000-4000-a100-' || lpad(t::text, 12, '0'))::uuid, ('00000000-0000-4000-a000-' || lpad((t % 20)::text, 12, '0'))::uuid, 'T' || t
         FROM generate_series(0, 1999) t`,
    );
    // one statement: the usage rollup's statement trigger takes the whole million as one delta
    await raw.query(
      `INSERT INTO workflow_runs (id, workflow_type, status, owner_agent_id, task_id, model_id, cost_estimate, cost_source, billing, input_tokens, output_tokens, reported_at, created_at)
       SELECT gen_random_uuid(), 'type-' || (i % 12), 'completed', 'cagent-' || (i % 50), ('00000000-0000-4000-a100-' || lpad((i % 2000)::text, 12, '0'))::uuid,
              'model-' || (i % 4), CASE WHEN i % 101 = 0 THEN NULL ELSE (i % 997) / 1000.0 END, CASE WHEN i % 101 = 0 THEN NULL ELSE 'table' END,
              CASE WHEN i % 7 = 0 THEN 'subscription' ELSE 'metered' END, 1000 + i % 5000, 200 + i % 800,
              now() - ((i % (60 * 86400)) || ' seconds')::interval, now() - interval '61 days'
         FROM generate_series(1, ${RUNS}) i`,
    );
    await raw.query(
      `INSERT INTO workflow_agent_routing (workflow_type, agent_id, priority, timeout_minutes, expected_cost_usd) VALUES ('live-bench', 'cagent-0', 0, 60, 3) ON CONFLICT DO NOTHING`,
    );
    await raw.query(
      `INSERT INTO workflow_runs (id, workflow_type, status, owner_agent_id, started_at) SELECT gen_random_uuid(), 'live-bench', 'running', 'cagent-' || (g % 50), now() FROM generate_series(1, 40) g`,
    );
    await raw.query('SELECT run_usage_compact()');
    await raw.query(
      `INSERT INTO budgets (id, name, scope, scope_id, period, cap_usd, cap_tokens, action_on_exceed, basis) VALUES
         (gen_random_uuid(), 'Fleet monthly', 'fleet', NULL, 'monthly', 250000, NULL, 'warn', 'billed'),
         (gen_random_uuid(), 'Fleet weekly at list', 'fleet', NULL, 'weekly', 60000, NULL, 'pause_new_runs', 'list'),
         (gen_random_uuid(), 'Fleet daily', 'fleet', NULL, 'daily', 9000, NULL, 'hard_stop', 'billed'),
         (gen_random_uuid(), 'Agent 3 monthly', 'agent', 'cagent-3', 'monthly', 5000, NULL, 'warn', 'billed'),
         (gen_random_uuid(), 'Department 2 weekly', 'department', 'cdept-2', 'weekly', 4000, NULL, 'hard_stop', 'billed'),
         (gen_random_uuid(), 'Project 7 monthly', 'project', '00000000-0000-4000-a000-000000000007', 'monthly', 12000, NULL, 'pause_new_runs', 'billed'),
         (gen_random_uuid(), 'Agent 9 tokens', 'agent', 'cagent-9', 'weekly', NULL, 100000000, 'warn', 'billed'),
         (gen_random_uuid(), 'Department 5 daily', 'department', 'cdept-5', 'daily', 400, NULL, 'warn', 'list')`,
    );
    await raw.query('VACUUM ANALYZE');

    const drawn = await navigations(
      browser,
      `${server.url}/costs`,
      `document.querySelectorAll('.budget-burn-down canvas').length >= ${BUDGETS}`,
    );
    const fetched = await fetchInPage(browser, server.url, '/api/budgets/burn-down');
    report(
      `console: costs page over ${RUNS} runs to burn-downs`,
      median(drawn),
      fetched,
      'ms',
      `(median of ${drawn.length} navigations to ${BUDGETS} burn-downs drawn; baseline: GET /api/budgets/burn-down fetched and parsed in the page; goal <= 1000 ms)`,
    );
  } finally {
    await browser.close();
    await raw.close();
    await server.stop();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await database.close();
  }
}
