import pg from 'pg';
import { claimTask } from '../core/agents/locks';
import { claimRun } from '../core/workflows/run-claim';
import { migrate } from '../infra/db/migrate';
import { PgDb } from '../infra/db/pg-db';
import { benchDatabase, benchDeps, report } from './support';

/**
 * BENCH_AGENTS concurrent agents (default 50) race to claim BENCH_RUNS dispatched runs (default 1,000):
 * each agent walks the runs in its own random order and claims what it can, through the claim use case.
 * Figures: successful claims per second, against a bare `UPDATE ... WHERE status = 'dispatched'` race
 * with the same concurrency, and the double claims found afterwards (must be 0). The same race
 * over BENCH_RUNS tasks through the task claim use case (POST /api/agent/claim), against a bare
 * `UPDATE tasks ... WHERE locked_by IS NULL`.
 */
const agents = Number(process.env.BENCH_AGENTS ?? 50);
const runs = Number(process.env.BENCH_RUNS ?? 1_000);
const poolSize = Number(process.env.BENCH_POOL ?? 20);

async function seed(client: pg.Client): Promise<string[]> {
  await client.query('TRUNCATE workflow_runs CASCADE');
  await client.query('TRUNCATE audit_log, entity_snapshots, event_outbox');
  const { rows } = await client.query<{ id: string }>(
    `INSERT INTO workflow_runs (id, workflow_type, status, dispatch_attempts, dispatched_at, target_agent_id)
     SELECT gen_random_uuid(), 'bench-flow', 'dispatched', 1, now(), 'bench-agent' FROM generate_series(1, $1) RETURNING id`,
    [runs],
  );
  return rows.map((r) => r.id);
}

async function seedTasks(client: pg.Client): Promise<string[]> {
  await client.query('TRUNCATE projects CASCADE');
  await client.query('TRUNCATE audit_log, entity_snapshots, event_outbox');
  await client.query(`INSERT INTO projects (id, name) VALUES ('00000000-0000-4000-8000-000000000001', 'bench claims')`);
  const { rows } = await client.query<{ id: string }>(
    `INSERT INTO tasks (id, project_id, title, status)
     SELECT gen_random_uuid(), '00000000-0000-4000-8000-000000000001', 'claim me ' || g, 'ready' FROM generate_series(1, $1) g RETURNING id`,
    [runs],
  );
  return rows.map((r) => r.id);
}

function shuffled<T>(items: readonly T[]): T[] {
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

async function race(ids: string[], claim: (id: string, agent: number) => Promise<boolean>): Promise<{ claims: number; ms: number }> {
  let claims = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: agents }, async (_, agent) => {
      for (const id of shuffled(ids)) if (await claim(id, agent)) claims++;
    }),
  );
  return { claims, ms: performance.now() - started };
}

export async function run(): Promise<void> {
  const database = await benchDatabase();
  const db = new PgDb(database.url, { max: poolSize });
  await migrate(db);
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  const pool = new pg.Pool({ connectionString: database.url, max: poolSize });
  try {
    const deps = benchDeps(db, database.dataDir);
    let ids = await seed(client);
    const ours = await race(ids, async (id, agent) => {
      try {
        await claimRun(deps, id, { agent_id: `agent-${agent}`, session_id: `agent:agent-${agent}:main:bench` });
        return true;
      } catch {
        return false;
      }
    });
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (SELECT entity_id FROM audit_log WHERE action = 'claimed' GROUP BY entity_id HAVING count(*) > 1) d`,
    );
    const doubles = rows[0]!.n + Math.max(0, ours.claims - runs);

    ids = await seed(client);
    const baseline = await race(ids, async (id, agent) => {
      const res = await pool.query(
        `UPDATE workflow_runs SET status = 'claimed', claim_session_id = $2 WHERE id = $1 AND status = 'dispatched'`,
        [id, `agent-${agent}`],
      );
      return res.rowCount === 1;
    });
    report(
      `claims, ${agents} agents on ${runs} runs`,
      (ours.claims / ours.ms) * 1000,
      (baseline.claims / baseline.ms) * 1000,
      'claims/s',
      `claimed ${ours.claims}/${runs}, double claims ${doubles}`,
    );

    let taskIds = await seedTasks(client);
    const oursTasks = await race(taskIds, async (id, agent) => {
      try {
        await claimTask(deps, { task_id: id, agent_name: `agent-${agent}` });
        return true;
      } catch {
        return false;
      }
    });
    const { rows: taskDoubles } = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (SELECT entity_id FROM audit_log WHERE action = 'claimed' AND entity_type = 'task' GROUP BY entity_id HAVING count(*) > 1) d`,
    );
    taskIds = await seedTasks(client);
    const baselineTasks = await race(taskIds, async (id, agent) => {
      const res = await pool.query(`UPDATE tasks SET locked_by = $2, locked_at = now() WHERE id = $1 AND locked_by IS NULL`, [
        id,
        `agent-${agent}`,
      ]);
      return res.rowCount === 1;
    });
    report(
      `task claims, ${agents} agents on ${runs} tasks`,
      (oursTasks.claims / oursTasks.ms) * 1000,
      (baselineTasks.claims / baselineTasks.ms) * 1000,
      'claims/s',
      `claimed ${oursTasks.claims}/${runs}, double claims ${taskDoubles[0]!.n + Math.max(0, oursTasks.claims - runs)}`,
    );
  } finally {
    await pool.end();
    await client.end();
    await db.close();
    await database.close();
  }
}
