import pg from 'pg';
import { foldAuditSearch } from '../core/audit/list-audit';
import { tick } from '../core/workflows/dispatcher';
import { migrate } from '../infra/db/migrate';
import { PgDb } from '../infra/db/pg-db';
import { benchDatabase, benchDeps, report } from './support';

/**
 * One dispatcher tick over BENCH_QUEUED queued runs (default 10,000) and BENCH_STALE stale ones
 * (default 1,000 dispatched and unclaimed for 6 minutes), against the bare SQL the same state
 * change needs (one UPDATE per phase, no audit, no events, no wake). The runtime is a no-op,
 * so the figure is the engine's own cost.
 */
const queued = Number(process.env.BENCH_QUEUED ?? 10_000);
const stale = Number(process.env.BENCH_STALE ?? 1_000);

async function seed(client: pg.Client): Promise<void> {
  await client.query('TRUNCATE workflow_runs CASCADE');
  await client.query(`TRUNCATE audit_log, entity_snapshots, event_outbox, dispatcher_ticks`);
  // the engine's own cost, without a budget gate to ask: in a full run, earlier scenarios leave thousands of budgets here,
  // and (snapshot-restore's generated rows) thousands of agent caps and pauses and capped routes, which made the full
  // run's tick count caps a dedicated run never saw
  await client.query('TRUNCATE budgets CASCADE');
  await client.query('TRUNCATE agent_dispatch_controls');
  await client.query(`DELETE FROM workflow_agent_routing WHERE workflow_type <> 'bench-flow'`);
  await client.query(
    `INSERT INTO workflow_runs (id, workflow_type, status, created_at)
     SELECT gen_random_uuid(), 'bench-flow', 'queued', now() - make_interval(secs => g) FROM generate_series(1, $1) g`,
    [queued],
  );
  await client.query(
    `INSERT INTO workflow_runs (id, workflow_type, status, dispatch_attempts, dispatched_at, target_agent_id, created_at)
     SELECT gen_random_uuid(), 'bench-flow', 'dispatched', 1, now() - interval '6 minutes', 'bench-agent', now() FROM generate_series(1, $1)`,
    [stale],
  );
  await client.query('ANALYZE workflow_runs');
}

export async function run(): Promise<void> {
  const database = await benchDatabase();
  const db = new PgDb(database.url);
  await migrate(db);
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    await client.query(`INSERT INTO workflow_templates (name, steps) VALUES ('bench-flow', '["a","b","c"]') ON CONFLICT DO NOTHING`);
    await client.query(
      `INSERT INTO workflow_agent_routing (workflow_type, agent_id) VALUES ('bench-flow', 'bench-agent') ON CONFLICT DO NOTHING`,
    );
    const deps = benchDeps(db, database.dataDir);

    await seed(client);
    let started = performance.now();
    const summary = await tick(deps, { source: 'bench', batchSize: Number(process.env.BENCH_BATCH ?? 500) });
    const ours = performance.now() - started;
    // the tick's audit rows are made searchable by the next tick's fold (migration 1020): its cost, shown beside the figure
    started = performance.now();
    const folded = await foldAuditSearch(db, Number.MAX_SAFE_INTEGER);
    const fold = performance.now() - started;

    await seed(client);
    started = performance.now();
    await client.query('BEGIN');
    await client.query(
      `UPDATE workflow_runs SET dispatched_at = now(), dispatch_attempts = dispatch_attempts + 1
        WHERE status = 'dispatched' AND dispatched_at <= now() - interval '5 minutes' AND dispatch_attempts < 3`,
    );
    await client.query(
      `UPDATE workflow_runs r SET status = 'dispatched', target_agent_id = w.agent_id, dispatched_at = now(), dispatch_attempts = r.dispatch_attempts + 1
         FROM workflow_agent_routing w WHERE w.workflow_type = r.workflow_type AND r.status = 'queued'`,
    );
    await client.query('COMMIT');
    const baseline = performance.now() - started;

    report(
      `dispatcher tick (${queued} queued + ${stale} stale)`,
      ours,
      baseline,
      'ms',
      `dispatched ${summary.dispatched}, redispatched ${summary.recovered.redispatched}; its ${folded} audit rows indexed by the next tick in ${Math.round(fold)} ms`,
    );
  } finally {
    await client.end();
    await db.close();
    await database.close();
  }
}
