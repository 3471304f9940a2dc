import { taskColumns } from '../core/tasks/task';
import { startRunner } from '../infra/http/runner';
import { auditPageSql, parseAuditQuery } from '../core/audit/list-audit';
import { taskStateAtSql } from '../core/history/history';
import { boardColumns, urgencyOrder } from '../core/views/board';
import { bareDb, benchAppContext, benchDatabase, insertBenchProjects, insertBenchTasks, medianMs, report } from './support';

const TASKS = Number(process.env.BENCH_TASKS ?? 50_000);
const AUDIT_ROWS = Number(process.env.BENCH_AUDIT_ROWS ?? 500_000);
const UNFOLDED_AUDIT_ROWS = Number(process.env.BENCH_UNFOLDED_AUDIT_ROWS ?? 100_000);
const PROJECTS = 50;
const boardRowsSql = `SELECT ${taskColumns} FROM tasks t
  WHERE t.project_id = $1 AND t.deleted_at IS NULL AND t.archived_at IS NULL AND t.status = ANY($2::text[]) ORDER BY ${urgencyOrder}`;

/**
 * GET /api/tasks/all, the board view, GET /api/audit?q= and a history snapshot through the
 * local runner, each next to the bare SQL query it needs on the same database, with
 * BENCH_TASKS tasks (default 50,000) and BENCH_AUDIT_ROWS audit rows (default 500,000)
 * generated set-based in SQL.
 */
export async function run(): Promise<void> {
  const database = await benchDatabase();
  const app = await benchAppContext(database);
  const raw = bareDb(database.url);
  const started = Date.now();
  await insertBenchProjects(raw, PROJECTS);
  await insertBenchTasks(raw, TASKS, PROJECTS, {
    statusSql: `(ARRAY['backlog','ready','in_progress','blocked','review','completed'])[1 + g % 6]`,
  });
  // the trigram index is rebuilt once after the bulk load instead of being maintained row by row
  await raw.query('DROP INDEX audit_search_text_trgm');
  await raw.query(
    `INSERT INTO audit_log (timestamp, actor, action, entity_type, entity_id, new_value)
     SELECT now() - g * interval '100 milliseconds', 'agent-' || (g % 300), (ARRAY['created','updated','status_changed','claimed'])[1 + g % 4],
            'task', g::text, jsonb_build_object('title', 'bench row ' || g, 'tag', md5(g::text))
       FROM generate_series(1, ${AUDIT_ROWS}) g`,
  );
  // every audit row folded, these and what earlier scenarios of a full run left queued: the state a dispatcher pass leaves
  await raw.query('SELECT audit_search_fold(2147483647)');
  await raw.query('CREATE INDEX audit_search_text_trgm ON audit_search USING gin (search_text gin_trgm_ops)');
  const {
    rows: [task],
  } = await raw.query<{ id: string }>('SELECT id FROM tasks ORDER BY created_at DESC LIMIT 1');
  await raw.query(
    `INSERT INTO entity_snapshots (id, entity_type, entity_id, state, reason, actor, created_at)
     SELECT gen_random_uuid(), 'task', t.id::text, to_jsonb(t), 'created', 'bench', t.created_at FROM tasks t`,
  );
  await raw.query('ANALYZE');
  console.log(`tasks bench: ${TASKS} tasks, ${AUDIT_ROWS} audit rows generated in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  const runner = await startRunner({ host: '127.0.0.1', port: 0, largeBodyLimit: 1024 });
  const project = '00000000-0000-4000-b000-000000000001';
  const at = new Date();
  const search = parseAuditQuery({ q: 'bench row 4242' });
  const audit = auditPageSql(search, search.limit, search.offset);
  const scenarios: Array<[string, string, () => Promise<unknown>]> = [
    // baseline: every row in one bare query; ours reads pages of ALL_TASKS_PAGE_ROWS and streams them
    [
      'GET /api/tasks/all',
      '/api/tasks/all',
      () => raw.query(`SELECT ${taskColumns} FROM tasks WHERE deleted_at IS NULL ORDER BY created_at, id`),
    ],
    // baseline: the board's rows as the endpoint read them before its JSON was built in SQL
    ['GET /api/views/board', `/api/views/board?project_id=${project}`, () => raw.query(boardRowsSql, [project, boardColumns])],
    ['GET /api/audit?q=', `/api/audit?q=${encodeURIComponent('bench row 4242')}`, () => raw.query(audit.sql, audit.params)],
    [
      'GET /api/history/:id/snapshot',
      `/api/history/${task!.id}/snapshot?at=${encodeURIComponent(at.toISOString())}`,
      () => raw.query(taskStateAtSql, [task!.id, at]),
    ],
  ];
  const through = (name: string, target: string) =>
    medianMs(async () => {
      const res = await fetch(`${runner.url}${target}`);
      if (res.status !== 200) throw new Error(`${name}: HTTP ${res.status}`);
      await res.arrayBuffer();
    });
  const medians = new Map<string, number>();
  for (const [name, target, bare] of scenarios) {
    const ours = await through(name, target);
    medians.set(name, ours);
    report(name, ours, await medianMs(bare), 'µs', '(median latency; baseline = bare SQL)');
  }

  // No dispatcher and no fold timer run in this process: audit rows written now stay queued, as
  // they do where nothing folds, and the same search must not grow with them.
  const searchTarget = scenarios.find(([name]) => name === 'GET /api/audit?q=')![1];
  await raw.query(
    `INSERT INTO audit_log (timestamp, actor, action, entity_type, entity_id, new_value)
     SELECT now() + g * interval '1 millisecond', 'agent-' || (g % 300), 'updated', 'task', g::text,
            jsonb_build_object('title', 'late row ' || g, 'tag', md5(g::text))
       FROM generate_series(1, ${UNFOLDED_AUDIT_ROWS}) g`,
  );
  await raw.query('ANALYZE audit_log');
  await raw.query('ANALYZE audit_search_pending');
  const unfolded = await through('GET /api/audit?q= unfolded', searchTarget);
  report(
    `GET /api/audit?q= (${UNFOLDED_AUDIT_ROWS.toLocaleString('en-US')} unfolded)`,
    unfolded,
    medians.get('GET /api/audit?q=')!,
    'µs',
    '(median latency; baseline = the same search with every row folded)',
  );

  await raw.close();
  await runner.close();
  await app.close();
  await database.close();
}
