import { startRunner } from '../infra/http/runner';
import { boardColumns, urgencyOrder } from '../core/views/board';
import { taskColumns } from '../core/tasks/task';
import { bareDb, benchAppContext, benchDatabase, insertBenchProjects, insertBenchTasks, medianMs, report } from './support';

const TASKS = Number(process.env.BENCH_CONSOLE_TASKS ?? 100_000);
const PROJECTS = 50;
const BLOCKED = 150;
const FAILED = 50;
const AGENTS = 500;
const LIVE_RUNS = 2_000;

/**
 * The console's three routes through the local runner, each next to a bare SQL query on the same
 * database: GET /api/tasks/search over BENCH_CONSOLE_TASKS tasks (default 100,000; baseline: the
 * same substring match with no ranking), GET /api/views/board/as-of (baseline: the live board's
 * rows), and GET /api/inbox with 200 items waiting (150 blocked tasks, 50 failed runs; baseline: the
 * two bare listings of those items), and GET /api/agents/roster of 500 agents holding 2,000 live runs
 * (baseline: the bare heartbeat listing),
 * GET /api/views/runs (baseline: the newest 100 runs' rows) and GET /api/workflow-runs/:id/page of a
 * failed run (baseline: its row and its audit rows).
 */
export async function run(): Promise<void> {
  const database = await benchDatabase();
  const app = await benchAppContext(database);
  const raw = bareDb(database.url);
  const started = Date.now();
  await insertBenchProjects(raw, PROJECTS);
  await insertBenchTasks(raw, TASKS, PROJECTS, {
    statusSql: `CASE WHEN g <= ${BLOCKED} THEN 'blocked' ELSE (ARRAY['backlog','ready','in_progress','review','completed'])[1 + g % 5] END`,
    titleSuffixSql: `' ' || md5(g::text)`,
  });
  await raw.query(
    `INSERT INTO entity_snapshots (id, entity_type, entity_id, state, reason, actor, created_at)
     SELECT gen_random_uuid(), 'task', t.id::text, to_jsonb(t) - 'json_segments', 'created', 'bench', t.created_at FROM tasks t`,
  );
  await raw.query(
    `INSERT INTO workflow_runs (id, workflow_type, task_id, status, last_error)
     SELECT gen_random_uuid(), 'bench', t.id, 'failed', 'bench failure' FROM tasks t WHERE t.status = 'ready' ORDER BY t.created_at LIMIT ${FAILED}`,
  );
  await raw.query('ANALYZE');
  console.log(
    `console bench: ${TASKS} tasks and their snapshots, ${BLOCKED + FAILED} inbox items generated in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );

  const runner = await startRunner({ host: '127.0.0.1', port: 0, largeBodyLimit: 1024 });
  const project = '00000000-0000-4000-b000-000000000001';
  const at = new Date().toISOString();
  const scenarios: Array<[string, string, () => Promise<unknown>]> = [
    [
      'GET /api/tasks/search (100k tasks)',
      `/api/tasks/search?q=${encodeURIComponent('task 4242')}`,
      () => raw.query(`SELECT id, title FROM tasks WHERE deleted_at IS NULL AND title ILIKE '%task 4242%' LIMIT 20`),
    ],
    [
      'GET /api/views/board/as-of',
      `/api/views/board/as-of?project_id=${project}&at=${encodeURIComponent(at)}`,
      () =>
        raw.query(
          `SELECT ${taskColumns} FROM tasks t WHERE t.project_id = $1 AND t.deleted_at IS NULL AND t.archived_at IS NULL AND t.status = ANY($2::text[]) ORDER BY ${urgencyOrder}`,
          [project, boardColumns],
        ),
    ],
    [
      'GET /api/inbox (200 items)',
      '/api/inbox',
      () =>
        Promise.all([
          raw.query(`SELECT id, title, metadata FROM tasks WHERE status = 'blocked' AND deleted_at IS NULL`),
          raw.query(`SELECT id, task_id, last_error FROM workflow_runs WHERE status = 'failed'`),
        ]),
    ],
  ];
  // the Runs screen and a run page (docs/console-api.md): a failed run of the inbox's, with its audit rows
  const { rows: failedRuns } = await raw.query<{ id: string }>(
    `SELECT id FROM workflow_runs WHERE status = 'failed' ORDER BY created_at LIMIT 1`,
  );
  const runId = failedRuns[0]!.id;
  scenarios.push(
    ['GET /api/views/runs', '/api/views/runs', () => raw.query(`SELECT * FROM workflow_runs ORDER BY created_at DESC, id DESC LIMIT 100`)],
    [
      'GET /api/workflow-runs/:id/page',
      `/api/workflow-runs/${runId}/page`,
      () =>
        Promise.all([
          raw.query('SELECT * FROM workflow_runs WHERE id = $1', [runId]),
          raw.query(`SELECT * FROM audit_log WHERE entity_type = 'workflow_run' AND entity_id = $1 ORDER BY timestamp, id`, [runId]),
        ]),
    ],
  );
  for (const [name, target, bare] of scenarios) {
    const ours = await medianMs(async () => {
      const res = await fetch(`${runner.url}${target}`);
      if (res.status !== 200) throw new Error(`${name}: HTTP ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    });
    report(name, ours, await medianMs(bare), 'µs', '(median latency; baseline = bare SQL)');
  }
  const inbox = (await (await fetch(`${runner.url}/api/inbox`)).json()) as { count: number };
  if (inbox.count !== BLOCKED + FAILED) throw new Error(`inbox bench: expected ${BLOCKED + FAILED} items, the inbox counts ${inbox.count}`);

  // the Agents screen's read, arranged after the inbox's (its live runs would be inbox items of their own)
  await raw.query(
    `INSERT INTO agent_heartbeats (agent_name, last_seen_at, status, metadata, created_at, updated_at)
     SELECT 'bench-agent-' || g, now(), 'online', '{}', now(), now() FROM generate_series(1, ${AGENTS}) g`,
  );
  await raw.query(
    `INSERT INTO agent_dispatch_controls (agent_id, max_concurrent_runs, created_at, updated_at)
     SELECT 'bench-agent-' || g, 5, now(), now() FROM generate_series(1, ${AGENTS}, 2) g`,
  );
  await raw.query(
    `INSERT INTO workflow_runs (id, workflow_type, target_agent_id, status, dispatched_at)
     SELECT gen_random_uuid(), 'bench', 'bench-agent-' || (1 + g % ${AGENTS}), 'dispatched', now() FROM generate_series(1, ${LIVE_RUNS}) g`,
  );
  await raw.query('ANALYZE');
  const roster = await medianMs(async () => {
    const res = await fetch(`${runner.url}/api/agents/roster`);
    if (res.status !== 200) throw new Error(`roster: HTTP ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  });
  report(
    `GET /api/agents/roster (${AGENTS} agents)`,
    roster,
    await medianMs(() => raw.query('SELECT agent_name, last_seen_at, status FROM agent_heartbeats')),
    'µs',
    '(median latency; baseline = bare SQL)',
  );

  await raw.close();
  await runner.close();
  await app.close();
  await database.close();
}
