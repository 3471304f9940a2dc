import { probeHeadroom } from '../core/budgets/headroom';
import { getCostRollup } from '../core/costs/rollup';
import { getCostSummary } from '../core/costs/summary';
import { usageAtSql } from '../core/costs/usage';
import type { Clock, Storage } from '../core/ports';
import { migrate } from '../infra/db/migrate';
import { PgDb } from '../infra/db/pg-db';
import { outboxEventBus } from '../infra/events/outbox-event-bus';
import { benchDatabase, report, seconds } from './support';

const RUNS = Number(process.env.BENCH_COST_RUNS ?? 1_000_000);
const AGENTS = 50;
const DEPARTMENTS = 10;
const PROJECTS = 20;

/** Median milliseconds of `work`, repeated for at most BENCH_SECONDS (and at most 50 times, at least 3). */
async function medianMs(work: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  const until = Date.now() + seconds * 1000;
  while (times.length < 3 || (times.length < 50 && Date.now() < until)) {
    const t = process.hrtime.bigint();
    await work();
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

/**
 * Cost summary and rollup over BENCH_COST_RUNS runs (1,000,000) spread across 90 days, and the
 * budget headroom probe of one dispatch over 200 active budgets, each against the bare SQL that
 * answers the same question on the same database.
 */
export async function run(): Promise<void> {
  const database = await benchDatabase();
  const db = new PgDb(database.url, { max: 4 });
  await migrate(db);
  const now = new Date();
  console.log(`costs and budgets: seeding ${RUNS} runs over 90 days and 200 budgets…`);
  // the 200 budgets below are the only ones: in a full run, snapshot-restore has left ~7,400 in this database
  await db.query('TRUNCATE budgets CASCADE');
  await db.query(
    `INSERT INTO departments (id, name) SELECT 'dept-' || d, 'Department ' || d FROM generate_series(0, ${DEPARTMENTS - 1}) d`,
  );
  await db.query(
    `INSERT INTO agent_profiles (agent_id, department_id) SELECT 'agent-' || a, 'dept-' || (a % ${DEPARTMENTS}) FROM generate_series(0, ${AGENTS - 1}) a`,
  );
  await db.query(
    `INSERT INTO projects (id, name) SELECT ('00000000-0000-4000-8000-' || lpad(p::text, 12, '0'))::uuid, 'P' || p FROM generate_series(0, ${PROJECTS - 1}) p`,
  );
  await db.query(
    `INSERT INTO tasks (id, project_id, title)
     SELECT ('00000000-0000-4000-9000-' || lpad(t::text, 12, '0'))::uuid, ('00000000-0000-4000-8000-' || lpad((t % ${PROJECTS})::text, 12, '0'))::uuid, 'T' || t
       FROM generate_series(0, 1999) t`,
  );
  await db.query(
    `INSERT INTO workflow_runs (id, workflow_type, status, owner_agent_id, task_id, cost_estimate, input_tokens, output_tokens, cached_tokens, reported_at, created_at)
     SELECT gen_random_uuid(), 'type-' || (i % 12), 'completed', 'agent-' || (i % ${AGENTS}),
            ('00000000-0000-4000-9000-' || lpad((i % 2000)::text, 12, '0'))::uuid,
            (i % 997) / 1000.0, 1000 + i % 5000, 200 + i % 800, i % 500,
            $1::timestamptz - ((i % (90 * 86400)) || ' seconds')::interval, $1::timestamptz - interval '91 days'
       FROM generate_series(1, ${RUNS}) i`,
    [now],
  );
  await db.query(
    `INSERT INTO budgets (id, name, scope, scope_id, period, cap_usd, action_on_exceed)
     SELECT gen_random_uuid(), 'agent ' || a || ' ' || p, 'agent', 'agent-' || a, p, 1e9, 'pause_new_runs'
       FROM generate_series(0, ${AGENTS - 1}) a, unnest(ARRAY['daily', 'weekly', 'monthly']) p
     UNION ALL
     SELECT gen_random_uuid(), 'dept ' || d || ' ' || p, 'department', 'dept-' || d, p, 1e9, 'hard_stop'
       FROM generate_series(0, ${DEPARTMENTS - 1}) d, unnest(ARRAY['daily', 'weekly', 'monthly']) p
     UNION ALL
     SELECT gen_random_uuid(), 'project ' || p, 'project', '00000000-0000-4000-8000-' || lpad(p::text, 12, '0'), 'monthly', 1e9, 'warn'
       FROM generate_series(0, ${PROJECTS - 2}) p
     UNION ALL SELECT gen_random_uuid(), 'fleet', 'fleet', NULL, 'monthly', 1e9, 'hard_stop'`,
  );
  await db.query('VACUUM ANALYZE');

  const storage: Storage = { mode: 'database', db, label: 'bench' };
  const clock: Clock = { now: () => now };
  const deps = { storage, clock };
  const dayStart = new Date(Math.floor(now.getTime() / 86_400_000) * 86_400_000);
  const windowStart = new Date(dayStart.getTime() - 89 * 86_400_000);
  const windowEnd = new Date(dayStart.getTime() + 86_400_000);

  const bareDaily = () =>
    Promise.all([
      db.query(
        `SELECT (${usageAtSql} AT TIME ZONE 'UTC')::date AS day, sum(cost_estimate), count(*), sum(input_tokens), sum(output_tokens)
           FROM workflow_runs r WHERE ${usageAtSql} >= $1 AND ${usageAtSql} < $2 GROUP BY 1 ORDER BY 1`,
        [windowStart, windowEnd],
      ),
      db.query(
        `SELECT id, cost_estimate FROM workflow_runs r WHERE ${usageAtSql} >= $1 AND ${usageAtSql} < $2 ORDER BY cost_estimate DESC NULLS LAST LIMIT 1`,
        [windowStart, windowEnd],
      ),
    ]);
  report(
    'GET /api/costs/summary?days=90 (median)',
    await medianMs(() => getCostSummary(deps, { days: '90' })),
    await medianMs(bareDaily),
    'ms',
    `${RUNS} runs`,
  );

  const bareRollup = () =>
    db.query(
      `SELECT ap.department_id, (${usageAtSql} AT TIME ZONE 'UTC')::date AS day, sum(cost_estimate), count(*), sum(input_tokens), sum(output_tokens)
         FROM workflow_runs r LEFT JOIN agent_profiles ap ON ap.agent_id = r.owner_agent_id
        WHERE ${usageAtSql} >= $1 AND ${usageAtSql} < $2 GROUP BY 1, 2`,
      [windowStart, windowEnd],
    );
  report(
    'GET /api/costs/rollup?group_by=department&days=90',
    await medianMs(() => getCostRollup(deps, { group_by: 'department', days: '90' })),
    await medianMs(bareRollup),
    'ms',
  );
  const bareRollup7 = () =>
    db.query(
      `SELECT r.owner_agent_id, (${usageAtSql} AT TIME ZONE 'UTC')::date AS day, sum(cost_estimate), count(*)
         FROM workflow_runs r WHERE ${usageAtSql} >= $1 AND ${usageAtSql} < $2 GROUP BY 1, 2`,
      [new Date(dayStart.getTime() - 6 * 86_400_000), windowEnd],
    );
  report('GET /api/costs/rollup?group_by=agent (7 days)', await medianMs(() => getCostRollup(deps, {})), await medianMs(bareRollup7), 'ms');

  // one dispatch's chain: agent-7, its department dept-7, project 7 and the fleet (7 active budgets)
  const chain = { agents: ['agent-7'], departmentId: 'dept-7', projectId: '00000000-0000-4000-8000-000000000007' };
  const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const bareProbe = () =>
    db.query(
      `SELECT sum(r.cost_estimate) FILTER (WHERE true) AS fleet,
              sum(r.cost_estimate) FILTER (WHERE r.owner_agent_id = 'agent-7') AS agent,
              sum(r.cost_estimate) FILTER (WHERE ap.department_id = 'dept-7') AS dept,
              sum(r.cost_estimate) FILTER (WHERE t.project_id = $3) AS project
         FROM workflow_runs r LEFT JOIN agent_profiles ap ON ap.agent_id = r.owner_agent_id LEFT JOIN tasks t ON t.id = r.task_id
        WHERE ${usageAtSql} >= $1 AND ${usageAtSql} < $2`,
      [monthStart, windowEnd, chain.projectId],
    );
  report(
    'budget headroom probe (200 active budgets)',
    await medianMs(() => probeHeadroom(db, outboxEventBus, chain, now)),
    await medianMs(bareProbe),
    'ms',
    'chain with a monthly fleet budget',
  );
  const agentOnly = { agents: ['agent-7'], departmentId: null, projectId: null };
  await db.query(`UPDATE budgets SET active = false WHERE scope = 'fleet'`);
  const bareAgentProbe = () =>
    db.query(
      `SELECT sum(cost_estimate) FROM workflow_runs r WHERE ${usageAtSql} >= $1 AND ${usageAtSql} < $2 AND r.owner_agent_id = 'agent-7'`,
      [monthStart, windowEnd],
    );
  report(
    'budget headroom probe (agent chain, no fleet)',
    await medianMs(() => probeHeadroom(db, outboxEventBus, agentOnly, now)),
    await medianMs(bareAgentProbe),
    'ms',
  );

  await db.close();
  await database.close();
}
