import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useTestApp } from '../support/use-app';
import { claimedRun, createRun, fakeRuntime, fakeTime, templateWithRoute, tick } from './workflow-support';

/** GET /api/doctor finds inconsistencies read-only; POST /api/doctor/repair fixes them, audited. */

const app = useTestApp();
let clock: ReturnType<typeof fakeTime>;
let project: string;
beforeAll(async () => {
  project = (await app.call('POST', '/api/projects', { body: { name: 'Doctor' } })).body.id;
});
beforeEach(() => {
  clock = fakeTime(app);
  fakeRuntime(app);
});

const MIN = 60_000;
const kinds = [
  'expired_task_lease',
  'lock_of_ended_run',
  'lock_without_lease',
  'dangling_active_run',
  'unrecovered_silent_claim',
  'stale_outbox_rows',
  'inactive_budget_ledger',
  'expired_idempotency_keys',
  'run_without_target',
  'usage_rollup_drift',
];

async function newTask(title: string) {
  return (await app.call('POST', '/api/tasks', { body: { project_id: project, title } })).body.id as string;
}

async function report() {
  const res = await app.call('GET', '/api/doctor');
  expect(res.status).toBe(200);
  return Object.fromEntries(
    (res.body.findings as Array<{ kind: string; items: Array<{ id: string }> }>).map((f) => [f.kind, f.items.map((i) => i.id).sort()]),
  );
}

/**
 * Every table the doctor may touch, to prove a read or a dry run writes nothing. An outbox row's
 * stream position is left out: the sequencer hands it out after commit, on its own schedule.
 */
async function stateDigest() {
  const { rows } = await app.db.query<{ d: string }>(
    `SELECT md5(string_agg(x, '|' ORDER BY x)) AS d FROM (
       SELECT t::text AS x FROM tasks t UNION ALL SELECT r::text FROM workflow_runs r UNION ALL SELECT (e.id, e.channel, e.name, e.payload, e.created_at)::text FROM event_outbox e
       UNION ALL SELECT b::text FROM budget_events b UNION ALL SELECT k::text FROM run_idempotency_keys k UNION ALL SELECT a::text FROM audit_log a
       UNION ALL SELECT d::text FROM run_usage_daily d UNION ALL SELECT u::text FROM run_usage_delta u) s`,
  );
  return rows[0]!.d;
}

describe('integrity doctor', () => {
  it('finds each kind of inconsistency, changes nothing when reading or on a dry run, and repairs each kind with doctor.<kind> audit rows', async () => {
    const type = await templateWithRoute(app, { agent: 'writer' });
    // expired_task_lease: a claim whose lease lapsed, not yet swept
    const lapsed = await newTask('lapsed');
    await app.call('POST', '/api/agent/claim', { body: { task_id: lapsed, agent_name: 'crashed', lease_seconds: 30 } });
    // lock_without_lease: a lock written around the claim endpoint (an import, a revert)
    const leaseless = await newTask('leaseless');
    await app.db.query(`UPDATE tasks SET locked_by = 'importer', locked_at = now() WHERE id = $1`, [leaseless]);
    // lock_of_ended_run: the run ended by a path that predates the release (written directly)
    const ended = await newTask('ended');
    await app.call('POST', '/api/agent/claim', { body: { task_id: ended, agent_name: 'writer', lease_seconds: 86_400 } });
    // renewed past the clock jump below, so only the ended run makes this lock stale
    await app.db.query(`UPDATE tasks SET lease_expires_at = lease_expires_at + interval '7 days' WHERE id = $1`, [ended]);
    const endedRun = await createRun(app, type, { task_id: ended });
    await app.db.query(`UPDATE workflow_runs SET status = 'completed', target_agent_id = 'writer', finished_at = $2 WHERE id = $1`, [
      endedRun.id,
      clock.now(),
    ]);
    // dangling_active_run: the pointer names a run that ended
    const dangling = await newTask('dangling');
    const doneRun = await createRun(app, type, { task_id: dangling });
    await app.db.query(`UPDATE workflow_runs SET status = 'failed' WHERE id = $1`, [doneRun.id]);
    await app.db.query(`UPDATE tasks SET active_workflow_run_id = $2 WHERE id = $1`, [dangling, doneRun.id]);
    // unrecovered_silent_claim
    const silent = await claimedRun(app, type);
    // run_without_target
    const untargeted = await createRun(app, type);
    await app.db.query(`UPDATE workflow_runs SET status = 'running', target_agent_id = NULL WHERE id = $1`, [untargeted.id]);
    // inactive_budget_ledger
    const budgetId = '00000000-0000-4000-8000-00000000d0c7';
    await app.db.query(
      `INSERT INTO budgets (id, name, scope, period, cap_usd, action_on_exceed, active) VALUES ($1, 'retired', 'fleet', 'daily', 10, 'warn', false)`,
      [budgetId],
    );
    const { rows: ledger } = await app.db.query<{ id: string }>(
      `INSERT INTO budget_events (budget_id, period_key, event_kind, created_at) VALUES ($1, '2026-10-01', 'warned', $2) RETURNING id::text`,
      [budgetId, clock.now()],
    );
    // expired_idempotency_keys
    await app.call('POST', '/api/workflow-runs', { body: { workflow_type: type }, headers: { 'Idempotency-Key': 'doctor-old' } });
    // stale_outbox_rows
    await app.db.query(`INSERT INTO event_outbox (channel, name, payload) VALUES ('events', 'doctor-old', '{}')`);
    // the outbox numbers and stamps rows at commit, so the row is aged afterwards
    const { rows: outbox } = await app.db.query<{ id: string }>(
      `UPDATE event_outbox SET created_at = $1::timestamptz - interval '1 day' WHERE name = 'doctor-old' RETURNING id::text`,
      [clock.now()],
    );

    // a usage rollup that no longer matches the runs: a delta no run accounts for
    await app.db.query(
      `INSERT INTO run_usage_delta (day, agent_id, project_id, workflow_type, billing, runs, cost, input_tokens, output_tokens, unpriced_runs, unpriced_input, unpriced_output)
       VALUES ('2026-01-01', 'ghost', '', 'ghost-flow', 'metered', 1, 0.5, 0, 0, 0, 0, 0)`,
    );

    clock.advance(25 * 60 * MIN);
    const before = await stateDigest();
    const found = await report();
    expect(Object.keys(found)).toEqual(kinds);
    expect(found.expired_task_lease).toContain(lapsed);
    expect(found.lock_without_lease).toEqual([leaseless]);
    expect(found.lock_of_ended_run).toEqual([ended]);
    expect(found.dangling_active_run).toEqual([dangling, ended].sort());
    expect(found.unrecovered_silent_claim).toContain(silent.id);
    expect(found.run_without_target).toEqual([untargeted.id]);
    expect(found.inactive_budget_ledger).toEqual([ledger[0]!.id]);
    expect(found.expired_idempotency_keys).toEqual(['doctor-old']);
    expect(found.stale_outbox_rows).toContain(outbox[0]!.id);
    expect(found.usage_rollup_drift).toEqual(['2026-01-01|ghost||ghost-flow|metered']);

    const dry = await app.call('POST', '/api/doctor/repair', { body: { dry_run: true } });
    expect(dry.status).toBe(200);
    expect(dry.body.dry_run).toBe(true);
    expect(dry.body.repaired.map((r: { kind: string }) => r.kind)).toEqual(kinds);
    expect(await stateDigest()).toBe(before);

    const one = await app.http('POST', '/api/doctor/repair', { body: { kinds: ['lock_without_lease'] } });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ dry_run: false, total: 1, repaired: [{ kind: 'lock_without_lease', count: 1, ids: [leaseless] }] });
    const { rows: leased } = await app.db.query<{ lease_expires_at: Date }>('SELECT lease_expires_at FROM tasks WHERE id = $1', [
      leaseless,
    ]);
    expect(leased[0]!.lease_expires_at.getTime()).toBe(clock.now().getTime() + 1800 * 1000);

    const all = await app.call('POST', '/api/doctor/repair', { body: {} });
    expect(all.status).toBe(200);
    const after = await report();
    for (const kind of kinds) expect(after[kind], kind).toEqual([]);
    const { rows: tasks } = await app.db.query<{ id: string; locked_by: string | null; active_workflow_run_id: string | null }>(
      'SELECT id, locked_by, active_workflow_run_id FROM tasks WHERE id = ANY($1)',
      [[lapsed, ended, dangling]],
    );
    expect(tasks.every((t) => t.locked_by === null)).toBe(true);
    expect(tasks.find((t) => t.id === dangling)!.active_workflow_run_id).toBeNull();
    const { rows: runs } = await app.db.query('SELECT id, status, target_agent_id FROM workflow_runs WHERE id = ANY($1) ORDER BY id', [
      [silent.id, untargeted.id],
    ]);
    expect(runs).toEqual(
      expect.arrayContaining([
        { id: silent.id, status: 'dispatched', target_agent_id: 'writer' },
        { id: untargeted.id, status: 'running', target_agent_id: 'writer' },
      ]),
    );
    const { rows: audit } = await app.db.query<{ action: string; actor: string; entity_id: string }>(
      `SELECT action, actor, entity_id FROM audit_log WHERE action LIKE 'doctor.%' ORDER BY id`,
    );
    expect(audit.every((a) => a.actor === 'system')).toBe(true);
    expect(new Set(audit.map((a) => a.action))).toEqual(new Set(kinds.map((k) => `doctor.${k}`)));
    expect(audit.filter((a) => a.action === 'doctor.lock_of_ended_run').map((a) => a.entity_id)).toEqual([ended]);
    // a second repair finds nothing to do and writes nothing
    const digest = await stateDigest();
    expect((await app.call('POST', '/api/doctor/repair', { body: {} })).body.total).toBe(0);
    expect(await stateDigest()).toBe(digest);
  });

  it('refuses unknown kinds and bad flags with 400 naming the field', async () => {
    for (const [body, field] of [
      [{ kinds: ['everything'] }, 'kinds'],
      [{ kinds: [] }, 'kinds'],
      [{ kinds: 'expired_task_lease' }, 'kinds'],
      [{ dry_run: 'yes' }, 'dry_run'],
      [{ force: true }, 'force'],
    ] as const) {
      const res = await app.call('POST', '/api/doctor/repair', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toContain(field);
    }
  });

  it('a healthy database has no findings after a tick', async () => {
    await app.db.query(`DELETE FROM workflow_runs`);
    await app.db.query(`UPDATE tasks SET locked_by = NULL, locked_at = NULL, lease_expires_at = NULL, active_workflow_run_id = NULL`);
    const type = await templateWithRoute(app, { agent: 'writer' });
    const task = await newTask('healthy');
    await app.call('POST', '/api/agent/claim', { body: { task_id: task, agent_name: 'writer' } });
    await createRun(app, type, { task_id: task });
    await tick(app);
    const res = await app.call('GET', '/api/doctor');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.total, JSON.stringify(res.body.findings)).toBe(0);
  });
});
