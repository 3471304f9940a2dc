import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { costRunsFromRuntime, RUNTIME_USAGE_BATCH } from '../core/costs/runtime-usage';
import type { Deps } from '../core/ports';
import { listRuntimeSessions, sessionMessages } from '../core/runtime/session-reader';
import { migrate } from '../infra/db/migrate';
import { PgDb } from '../infra/db/pg-db';
import { runtimeStateFiles } from '../infra/runtime/state-files';
import { benchDatabase, benchDeps, medianMs, report } from './support';

/**
 * The runtime costs pass of each dispatcher pass (core/costs/runtime-usage.ts, docs/costs.md):
 * - idle: `BENCH_CHECKED` runs (40,000) that finished within the pass's horizon without usage and
 *   were all looked at already (agents that never report, sessions the runtime does not know: the
 *   pass's steady state at its worst), beside `BENCH_OLD` older ones (200,000); the queue is empty
 *   and the pass finds nothing to do. Baseline: the bare read of the horizon's finished runs
 *   without usage, what a pass without its queue would read each time.
 * - busy: a pass that costs RUNTIME_USAGE_BATCH runs from a real transcript of the released
 *   runtime (test/fixtures/runtime/openclaw-2026.9.6/transcript_main.json) in a state directory.
 *   Baseline: the session reads alone (the listing and the message page of each run), no writes.
 * - the queue's trigger: one UPDATE finishing `BENCH_FINISHING` runs (10,000) that all hold a
 *   session key and no usage, so all are queued. Baseline: the same UPDATE with the trigger disabled.
 */
const checked = Number(process.env.BENCH_CHECKED ?? 40_000);
const old = Number(process.env.BENCH_OLD ?? 200_000);
const finishing = Number(process.env.BENCH_FINISHING ?? 10_000);
const NOW = new Date('2026-11-27T19:00:00.000Z');
const KEY = 'agent:main:main';
const SESSION = 'b29b85b3-4446-48f0-9b8e-9f53ab26327d';

export async function run(): Promise<void> {
  const database = await benchDatabase();
  const db = new PgDb(database.url);
  await migrate(db);
  try {
    const stateDir = path.join(database.dataDir, 'runtime-state');
    const sessions = path.join(stateDir, 'agents', 'main', 'sessions');
    mkdirSync(sessions, { recursive: true });
    const rows = JSON.parse(
      readFileSync(new URL('../test/fixtures/runtime/openclaw-2026.9.6/transcript_main.json', import.meta.url), 'utf8'),
    ) as Array<{ ev: string }>;
    writeFileSync(path.join(sessions, 'sessions.json'), JSON.stringify({ [KEY]: { sessionId: SESSION, updatedAt: 1795804442627 } }));
    writeFileSync(path.join(sessions, `${SESSION}.jsonl`), `${rows.map((r) => r.ev).join('\n')}\n`);
    const deps: Deps = {
      ...benchDeps(db, database.dataDir),
      clock: { now: () => NOW },
      runtime: { stateDir, run: async () => ({ ok: true }), files: runtimeStateFiles(stateDir, 20 * 1024 * 1024) },
    };

    await db.query('TRUNCATE workflow_runs CASCADE');
    const finished = (count: number, finishedAt: string, session: string) =>
      db.query(
        `INSERT INTO workflow_runs (id, workflow_type, status, gateway_session_id, claimed_at, finished_at, created_at)
         SELECT gen_random_uuid(), 'bench-flow', 'completed', $2, $3::timestamptz - interval '40 seconds', $3::timestamptz, $3::timestamptz - interval '1 minute'
           FROM generate_series(1, $1)`,
        [count, session, finishedAt],
      );
    await finished(old, '2026-11-20T12:00:00Z', 'agent:main:task:old');
    await finished(checked, '2026-11-27T12:00:00Z', 'agent:main:task:unknown');
    await db.query(
      `INSERT INTO run_runtime_usage (run_id, outcome, session_key) SELECT id, 'no_session', gateway_session_id FROM workflow_runs`,
    );
    await db.query('ANALYZE workflow_runs');
    await db.query('ANALYZE run_runtime_usage');
    const idle = await medianMs(() => costRunsFromRuntime(deps));
    const bareIdle = await medianMs(() =>
      db.query(
        `SELECT id FROM workflow_runs r WHERE r.finished_at IS NOT NULL AND r.finished_at >= $1
            AND r.cost_estimate IS NULL AND r.input_tokens IS NULL AND r.output_tokens IS NULL AND r.cost_source IS NULL`,
        [new Date(NOW.getTime() - 2 * 86_400_000)],
      ),
    );
    report(`runtime costs pass, idle (${checked} checked runs)`, idle, bareIdle, 'µs');

    const busy: number[] = [];
    const bare: number[] = [];
    for (let round = 0; round < 5; round++) {
      await finished(RUNTIME_USAGE_BATCH, '2026-11-27T18:34:10Z', KEY);
      // runs finish by an update, which queues them (migration 1110's trigger)
      await db.query(`UPDATE workflow_runs SET updated_at = now() WHERE gateway_session_id = $1 AND cost_source IS NULL`, [KEY]);
      let t0 = performance.now();
      const pass = await costRunsFromRuntime(deps);
      busy.push(performance.now() - t0);
      if (pass.costed !== RUNTIME_USAGE_BATCH) throw new Error(`the pass costed ${pass.costed} runs, not ${RUNTIME_USAGE_BATCH}`);
      t0 = performance.now();
      for (let i = 0; i < RUNTIME_USAGE_BATCH; i++) {
        await listRuntimeSessions(deps, { agent: 'main' });
        await sessionMessages(deps, SESSION, { agent: 'main', limit: '500' });
      }
      bare.push(performance.now() - t0);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    report(`runtime costs pass, ${RUNTIME_USAGE_BATCH} runs costed`, median(busy), median(bare), 'ms', 'baseline: the session reads alone');

    // what the queue's trigger adds to the statement that finishes runs: all of them queued (the worst case)
    const withTrigger: number[] = [];
    const withoutTrigger: number[] = [];
    const finishMany = async () => {
      await db.query('TRUNCATE run_runtime_usage_pending');
      await db.query(`UPDATE workflow_runs SET status = 'running', finished_at = NULL WHERE workflow_type = 'bench-finish'`);
      const t0 = performance.now();
      await db.query(`UPDATE workflow_runs SET status = 'completed', finished_at = $1 WHERE workflow_type = 'bench-finish'`, [NOW]);
      return performance.now() - t0;
    };
    await db.query(
      `INSERT INTO workflow_runs (id, workflow_type, status, gateway_session_id, claimed_at, created_at)
       SELECT gen_random_uuid(), 'bench-finish', 'running', 'agent:main:task:' || g, $2::timestamptz, $2::timestamptz FROM generate_series(1, $1) g`,
      [finishing, NOW],
    );
    for (let round = 0; round < 3; round++) {
      withTrigger.push(await finishMany());
      await db.query('ALTER TABLE workflow_runs DISABLE TRIGGER run_runtime_usage_queue');
      withoutTrigger.push(await finishMany());
      await db.query('ALTER TABLE workflow_runs ENABLE TRIGGER run_runtime_usage_queue');
    }
    report(
      `finishing ${finishing} runs in one statement`,
      Math.min(...withTrigger),
      Math.min(...withoutTrigger),
      'ms',
      'baseline: the same without the queue trigger (best of 3 each)',
    );
  } finally {
    await db.close();
    await database.close();
  }
}
