import pg from 'pg';
import { beforeEach, describe, expect, it } from 'vitest';
import type { BudgetGate, BudgetVerdict, DispatchCandidate } from '../../core/ports';
import type { Deps } from '../../core/ports';
import { tick as coreTick } from '../../core/workflows/dispatcher';
import { recoveryRules } from '../../core/workflows/recovery-rules';
import { runColumns } from '../../core/workflows/run';
import { releaseTasksOfEndedRuns } from '../../core/workflows/run-store';
import { useTestApp } from '../support/use-app';
import { createRun, fakeRuntime, fakeTime, runStatus, templateWithRoute, tick } from './workflow-support';

const app = useTestApp();
let clock: ReturnType<typeof fakeTime>;
let runtime: ReturnType<typeof fakeRuntime>;
beforeEach(async () => {
  clock = fakeTime(app);
  runtime = fakeRuntime(app);
  await app.db.query('DELETE FROM workflow_runs');
  await app.db.query('DELETE FROM workflow_agent_routing');
  await app.db.query('DELETE FROM dispatcher_ticks');
});

const MIN = 60_000;

function scriptedGate(decide: (c: DispatchCandidate) => BudgetVerdict, seen: DispatchCandidate[] = []): BudgetGate {
  return {
    async open() {
      return {
        async evaluate(candidate) {
          seen.push(candidate);
          return decide(candidate);
        },
      };
    },
  };
}

async function claim(id: string, session = 'agent:writer:main:s1') {
  const res = await app.call('POST', `/api/workflow-runs/${id}/claim`, { body: { agent_id: 'writer', session_id: session } });
  expect(res.status).toBe(200);
  return session;
}

/** This app's ports with another budget gate in Deps.dispatcher, as a budgets module would plug in. */
function withGate(budgetGate: BudgetGate): Deps {
  return { ...app.ctx.deps, dispatcher: { ...app.ctx.deps.dispatcher, budgetGate } };
}

describe('dispatch', () => {
  it('dispatches a queued run to its routed agent and wakes it with the system event of spec 03', async () => {
    const type = await templateWithRoute(app, { agent: 'writer' });
    const run = await createRun(app, type, { input_payload: { text: 'x'.repeat(500) } });
    const summary = await tick(app);
    expect(summary).toMatchObject({ dispatched: 1, woken: 1, wakeFailed: 0, budgetEnforcement: { held: 0, stopped: 0, warned: 0 } });
    expect(await runStatus(app, run.id)).toMatchObject({
      status: 'dispatched',
      target_agent_id: 'writer',
      dispatch_attempts: 1,
      gateway_session_id: null,
    });
    expect(runtime.calls).toHaveLength(1);
    const args = runtime.calls[0]!;
    expect(args.slice(0, 3)).toEqual(['system', 'event', '--text']);
    expect(args.slice(4)).toEqual(['--mode', 'now', '--session-key', 'agent:writer:main', '--json']);
    const text = args[3]!;
    expect(text).toContain(run.id);
    expect(text).toContain(type);
    expect(text).toContain('writer');
    expect(text).toContain(`http://127.0.0.1:3876/api/workflow-runs/${run.id}/claim`);
    const payloadLine = text.split('\n').find((l) => l.startsWith('Payload: '))!;
    expect(payloadLine.slice('Payload: '.length)).toBe(JSON.stringify({ text: 'x'.repeat(500) }).slice(0, 200));
  });

  it('leaves runs without a routing entry queued and counts them as unrouted', async () => {
    const type = await templateWithRoute(app);
    await app.db.query('DELETE FROM workflow_agent_routing WHERE workflow_type = $1', [type]);
    const run = await createRun(app, type);
    const summary = await tick(app);
    expect(summary).toMatchObject({ dispatched: 0, unrouted: 1 });
    expect((await runStatus(app, run.id)).status).toBe('queued');
  });

  it('dispatches by routing priority, highest first, then oldest first', async () => {
    const low = await templateWithRoute(app, { priority: 1 });
    const high = await templateWithRoute(app, { priority: 9 });
    const a = await createRun(app, low);
    clock.advance(1000);
    const b = await createRun(app, high);
    clock.advance(1000);
    const c = await createRun(app, high);
    const seen: DispatchCandidate[] = [];
    await coreTick(withGate(scriptedGate(() => ({ verdict: 'pass' }), seen)), { batchSize: 1 });
    expect(seen.map((s) => s.runId)).toEqual([b.id, c.id, a.id]);
  });

  it('keeps a dispatch when the wake fails, for every failure kind of the runtime', async () => {
    const type = await templateWithRoute(app);
    for (const failure of ['unavailable', 'failed', 'timed_out', 'bad_output'] as const) {
      runtime = fakeRuntime(app, () => failure);
      const run = await createRun(app, type);
      const summary = await tick(app);
      expect(summary).toMatchObject({ dispatched: 1, woken: 0, wakeFailed: 1 });
      expect(summary.wakeErrors[0]).toContain(run.id);
      expect((await runStatus(app, run.id)).status).toBe('dispatched');
    }
  });
});

describe('stale-run recovery (time moved by the clock)', () => {
  it('re-dispatches an unclaimed run after 5 minutes, up to 3 attempts, then fails it saying why', async () => {
    const type = await templateWithRoute(app);
    const run = await createRun(app, type);
    await tick(app);
    clock.advance(5 * MIN - 1000);
    expect((await tick(app)).recovered.redispatched).toBe(0);
    clock.advance(1000);
    expect((await tick(app)).recovered.redispatched).toBe(1);
    expect(await runStatus(app, run.id)).toMatchObject({ status: 'dispatched', dispatch_attempts: 2 });
    clock.advance(5 * MIN);
    await tick(app);
    expect(await runStatus(app, run.id)).toMatchObject({ status: 'dispatched', dispatch_attempts: 3 });
    expect(runtime.calls).toHaveLength(3);
    clock.advance(5 * MIN);
    const last = await tick(app);
    expect(last.recovered.failed).toBe(1);
    const failed = await runStatus(app, run.id);
    expect(failed.status).toBe('failed');
    expect(failed.last_error).toMatch(/not claimed within 5 minutes after 3 dispatch attempts/);
  });

  it('audits each dispatch and re-dispatch with exactly the fields that changed, timestamps as the API writes them', async () => {
    const type = await templateWithRoute(app, { agent: 'writer' });
    const run = await createRun(app, type, { input_payload: { nested: { keep: [1, 2] } } });
    await tick(app);
    clock.advance(5 * MIN);
    await tick(app);
    const { rows } = await app.db.query<{ action: string; old_value: unknown; new_value: unknown }>(
      `SELECT action, old_value, new_value FROM audit_log WHERE entity_type = 'workflow_run' AND entity_id = $1 AND action IN ('dispatched', 'redispatched') ORDER BY id`,
      [run.id],
    );
    const first = '2026-11-01T12:00:00.000Z';
    const second = '2026-11-01T12:05:00.000Z';
    expect(rows).toEqual([
      {
        action: 'dispatched',
        old_value: { id: run.id, status: 'queued', target_agent_id: null, dispatched_at: null, dispatch_attempts: 0 },
        new_value: { id: run.id, status: 'dispatched', target_agent_id: 'writer', dispatched_at: first, dispatch_attempts: 1 },
      },
      {
        action: 'redispatched',
        old_value: { id: run.id, dispatched_at: first, dispatch_attempts: 1 },
        new_value: { id: run.id, dispatched_at: second, dispatch_attempts: 2 },
      },
    ]);
  });

  it('releases a claimed run without a heartbeat for 10 minutes back to dispatched, moving its session to history', async () => {
    const type = await templateWithRoute(app);
    const run = await createRun(app, type);
    await tick(app);
    const session = await claim(run.id);
    clock.advance(9 * MIN);
    await app.call('POST', `/api/workflow-runs/${run.id}/heartbeat`, { body: { session_id: session } });
    clock.advance(9 * MIN);
    expect((await tick(app)).recovered.released).toBe(0);
    clock.advance(1 * MIN);
    expect((await tick(app)).recovered.released).toBe(1);
    expect(await runStatus(app, run.id)).toMatchObject({
      status: 'dispatched',
      gateway_session_id: null,
      claim_session_id: null,
      gateway_session_active: false,
      session_history: [session],
      retry_count: 1,
    });
    // the audit row names exactly the fields that changed, as the API writes them; the snapshot is the run as GET answers it
    const current = (await app.call('GET', `/api/workflow-runs/${run.id}`)).body as Record<string, unknown>;
    const { rows: audit } = await app.db.query<{ old_value: Record<string, unknown>; new_value: Record<string, unknown> }>(
      `SELECT old_value, new_value FROM audit_log WHERE entity_type = 'workflow_run' AND entity_id = $1 AND action = 'released'`,
      [run.id],
    );
    const changed = [
      'id',
      'status',
      'dispatched_at',
      'claimed_at',
      'heartbeat_at',
      'retry_count',
      'last_error',
      'gateway_session_id',
      'gateway_session_active',
      'claim_session_id',
      'session_history',
    ];
    expect(Object.keys(audit[0]!.new_value).sort()).toEqual([...changed].sort());
    expect(audit[0]!.new_value).toEqual(Object.fromEntries(changed.map((k) => [k, current[k]])));
    expect(audit[0]!.old_value).toMatchObject({
      status: 'claimed',
      claim_session_id: session,
      gateway_session_active: true,
      session_history: [],
      retry_count: 0,
      last_error: null,
    });
    const { rows: snapshots } = await app.db.query<{ state: unknown }>(
      `SELECT state FROM entity_snapshots WHERE entity_type = 'workflow_run' AND entity_id = $1 AND reason = 'released'`,
      [run.id],
    );
    const columns = runColumns.split(', ');
    expect(snapshots).toEqual([{ state: Object.fromEntries(columns.map((k) => [k, current[k]])) }]);
    const again = await app.call('POST', `/api/workflow-runs/${run.id}/claim`, {
      body: { agent_id: 'writer', session_id: 'agent:writer:main:s2' },
    });
    expect(again.status).toBe(200);
  });

  it("times out a running run past its route's timeout_minutes", async () => {
    const type = await templateWithRoute(app, { timeout: 30 });
    const run = await createRun(app, type);
    await tick(app);
    const session = await claim(run.id);
    await app.call('POST', `/api/workflow-runs/${run.id}/start`, { body: { session_id: session } });
    clock.advance(29 * MIN);
    expect((await tick(app)).recovered.timedOut).toBe(0);
    clock.advance(1 * MIN);
    expect((await tick(app)).recovered.timedOut).toBe(1);
    const timedOut = await runStatus(app, run.id);
    expect(timedOut.status).toBe('timed_out');
    expect(timedOut.last_error).toMatch(/timeout of 30 minutes/);
    expect((await app.call('GET', '/api/workflow-runs/stuck')).body.runs).toEqual([]);
  });

  it('lists the runs the next tick would recover as stuck, each with its reason', async () => {
    const type = await templateWithRoute(app);
    const unclaimed = await createRun(app, type);
    const silent = await createRun(app, type);
    await tick(app);
    await claim(silent.id);
    clock.advance(11 * MIN);
    const stuck = await app.call('GET', '/api/workflow-runs/stuck');
    const reasons = Object.fromEntries(stuck.body.runs.map((r: { id: string; stuck_reason: string }) => [r.id, r.stuck_reason]));
    expect(reasons).toEqual({ [unclaimed.id]: 'unclaimed', [silent.id]: 'silent_claim' });
    expect(stuck.body).toMatchObject({ total: 2, truncated: false });
  });
});

describe('budget hook', () => {
  it('holds (no attempt counted), stops (candidate and in-flight runs cancelled) and warns, counting each in the tick summary', async () => {
    const type = await templateWithRoute(app);
    const inFlight = await createRun(app, type);
    await tick(app);
    const hold = await createRun(app, type);
    const stop = await createRun(app, type);
    const warn = await createRun(app, type);
    const gate = scriptedGate((c) =>
      c.runId === hold.id
        ? { verdict: 'hold', reason: 'pause_new_runs' }
        : c.runId === stop.id
          ? { verdict: 'stop', reason: 'fleet cap reached', cancelRunIds: [inFlight.id] }
          : { verdict: 'warn', reason: 'over cap' },
    );
    const summary = await coreTick(withGate(gate));
    expect(summary.budgetEnforcement).toMatchObject({ held: 1, stopped: 1, warned: 1, cancelledInFlight: 1 });
    expect(await runStatus(app, hold.id)).toMatchObject({ status: 'queued', dispatch_attempts: 0 });
    expect(await runStatus(app, stop.id)).toMatchObject({
      status: 'cancelled',
      last_error: 'cancelled by budget hard stop: fleet cap reached',
    });
    expect((await runStatus(app, inFlight.id)).status).toBe('cancelled');
    expect((await runStatus(app, warn.id)).status).toBe('dispatched');
    const stats = await app.call('GET', '/api/workflow-runs/dispatcher/stats');
    expect(stats.body.last_tick_summary.budgetEnforcement).toMatchObject({ held: 1, stopped: 1, warned: 1 });
  });

  it('fails open when the gate throws', async () => {
    const type = await templateWithRoute(app);
    const run = await createRun(app, type);
    const broken: BudgetGate = {
      open: async () => ({
        evaluate: async () => {
          throw new Error('budget query failed');
        },
      }),
    };
    const summary = await coreTick(withGate(broken));
    expect(summary.dispatched).toBe(1);
    expect(summary.budgetEnforcement.gateErrors).toBe(1);
    expect((await runStatus(app, run.id)).status).toBe('dispatched');
  });
});

describe('concurrent ticks', () => {
  it('never dispatch the same run twice', async () => {
    const type = await templateWithRoute(app);
    await app.db.query(
      `INSERT INTO workflow_runs (id, workflow_type, status, created_at) SELECT gen_random_uuid(), $1, 'queued', now() - make_interval(secs => g) FROM generate_series(1, 300) g`,
      [type],
    );
    const summaries = await Promise.all(Array.from({ length: 4 }, () => coreTick(app.ctx.deps, { batchSize: 25 })));
    expect(summaries.reduce((a, s) => a + s.dispatched, 0)).toBe(300);
    const { rows } = await app.db.query<{ status: string; dispatch_attempts: number; n: number }>(
      'SELECT status, dispatch_attempts, count(*)::int AS n FROM workflow_runs GROUP BY 1, 2',
    );
    expect(rows).toEqual([{ status: 'dispatched', dispatch_attempts: 1, n: 300 }]);
    const audits = await app.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM audit_log WHERE action = 'dispatched' AND entity_id IN (SELECT id::text FROM workflow_runs) GROUP BY entity_id HAVING count(*) > 1`,
    );
    expect(audits.rows).toEqual([]);
    expect(runtime.calls).toHaveLength(300);
  });

  it('never recover the same run twice', async () => {
    const type = await templateWithRoute(app);
    await app.db.query(
      `INSERT INTO workflow_runs (id, workflow_type, status, dispatch_attempts, dispatched_at, created_at)
       SELECT gen_random_uuid(), $1, 'dispatched', 1, $2::timestamptz - interval '6 minutes', now() FROM generate_series(1, 200)`,
      [type, clock.now()],
    );
    const summaries = await Promise.all(Array.from({ length: 4 }, () => coreTick(app.ctx.deps, { batchSize: 20 })));
    expect(summaries.reduce((a, s) => a + s.recovered.redispatched, 0)).toBe(200);
    const { rows } = await app.db.query('SELECT dispatch_attempts, count(*)::int AS n FROM workflow_runs GROUP BY 1');
    expect(rows).toEqual([{ dispatch_attempts: 2, n: 200 }]);
  });
});

/**
 * Watched deps whose tick, right after asking whether anything caps dispatch, meets a cap set
 * through the API by `request`; capSet() says whether that moment came.
 */
function cappedAfterTheCheck(request: { method: 'PUT'; path: string; body: Record<string, unknown> }) {
  let capSet = false;
  const watched = watchedDeps(async (sql) => {
    if (capSet || !sql.includes('AS capped')) return;
    capSet = true;
    const put = await app.call(request.method, request.path, { body: request.body });
    expect(put.status).toBe(200);
  });
  return { ...watched, capSet: () => capSet };
}

/**
 * This app's ports with its database watched: how many transactions are open at once at most,
 * and a hook run after each statement (before its caller sees the answer).
 */
function watchedDeps(afterQuery?: (sql: string) => Promise<void>): { deps: Deps; mostAtOnce: () => number; openNow: () => number } {
  const { storage } = app.ctx.deps;
  if (storage.mode !== 'database') throw new Error('the test app runs on its database');
  let open = 0;
  let most = 0;
  // the pool and each transaction's connection, with the hook after every statement
  const watch = <T extends object>(inner: T): T =>
    new Proxy(inner, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver) as unknown;
        if (key === 'query') {
          return async (sql: string, params?: unknown[]) => {
            const answer = await (value as (sql: string, params?: unknown[]) => Promise<unknown>).call(target, sql, params);
            await afterQuery?.(sql);
            return answer;
          };
        }
        if (key === 'transaction') {
          return async (work: (tx: object) => Promise<unknown>) => {
            most = Math.max(most, ++open);
            try {
              return await (value as (work: (tx: object) => Promise<unknown>) => Promise<unknown>).call(target, (tx) => work(watch(tx)));
            } finally {
              open--;
            }
          };
        }
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  const db = watch(storage.db);
  return { deps: { ...app.ctx.deps, storage: { ...storage, db } }, mostAtOnce: () => most, openNow: () => open };
}

async function queuedInOrder(type: string, n: number): Promise<string[]> {
  const { rows } = await app.db.query<{ id: string }>(
    `INSERT INTO workflow_runs (id, workflow_type, status, created_at)
     SELECT gen_random_uuid(), $1, 'queued', $2::timestamptz - make_interval(secs => $3 - g) FROM generate_series(1, $3) g RETURNING id, created_at`,
    [type, clock.now(), n],
  );
  const { rows: ordered } = await app.db.query<{ id: string }>(
    'SELECT id FROM workflow_runs WHERE id = ANY($1::uuid[]) ORDER BY created_at, id',
    [rows.map((r) => r.id)],
  );
  return ordered.map((r) => r.id);
}

describe('batches at once', () => {
  it('an uncapped tick without budgets runs two batches at once, and every run is dispatched, audited, snapshotted and woken once', async () => {
    const type = await templateWithRoute(app, { agent: 'writer' });
    const ids = await queuedInOrder(type, 60);
    const watched = watchedDeps();
    const summary = await coreTick(watched.deps, { batchSize: 10 });
    expect(summary).toMatchObject({ dispatched: 60, woken: 60, capped: { workflowType: 0, agent: 0, fleet: 0 } });
    expect(watched.mostAtOnce()).toBe(2);
    const { rows } = await app.db.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM workflow_runs GROUP BY 1');
    expect(rows).toEqual([{ status: 'dispatched', n: 60 }]);
    const traces = await app.db.query<{ audits: number; snapshots: number }>(
      `SELECT (SELECT count(*)::int FROM audit_log a WHERE a.entity_id = r.id::text AND a.action = 'dispatched') AS audits,
              (SELECT count(*)::int FROM entity_snapshots s WHERE s.entity_id = r.id::text AND s.reason = 'dispatched') AS snapshots
         FROM workflow_runs r`,
    );
    expect(new Set(traces.rows.map((t) => `${t.audits}/${t.snapshots}`))).toEqual(new Set(['1/1']));
    // each run woken once (the wakes themselves run several at a time, so their order is not asserted)
    expect(runtime.calls.map((call) => ids.findIndex((id) => call[3]!.includes(id))).sort((a, b) => a - b)).toEqual(ids.map((_, i) => i));
  });

  it('a batch that fails stops the other lane before its next batch, and the tick reports the failure once no batch is open', async () => {
    const type = await templateWithRoute(app, { agent: 'writer' });
    await queuedInOrder(type, 60);
    let batchWrites = 0;
    const watched = watchedDeps(async (sql) => {
      if (sql.includes('INSERT INTO entity_snapshots') && ++batchWrites === 3) throw new Error('injected batch failure');
    });
    await expect(coreTick(watched.deps, { batchSize: 5 })).rejects.toThrow('injected batch failure');
    expect(watched.openNow()).toBe(0);
    const { rows } = await app.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM workflow_runs WHERE status = 'dispatched'`);
    // the failed batch rolled back; at most the other lane's batch in flight committed after the two before
    expect(rows[0]!.n).toBeGreaterThanOrEqual(10);
    expect(rows[0]!.n).toBeLessThanOrEqual(15);
  });

  it('a cap set as an uncapped tick starts is held: the batch that meets it is done again under the exclusive lock, as is the rest', async () => {
    const type = await templateWithRoute(app, { agent: 'writer' });
    await queuedInOrder(type, 30);
    // right after the tick asked whether anything caps dispatch (nothing did), the agent gets a cap of 5
    const watched = cappedAfterTheCheck({ method: 'PUT', path: '/api/agents/writer/limits', body: { max_concurrent_runs: 5 } });
    try {
      const summary = await coreTick(watched.deps, { batchSize: 5 });
      expect(watched.capSet()).toBe(true);
      expect(summary).toMatchObject({ dispatched: 5, capped: { agent: 25, workflowType: 0, fleet: 0 } });
      const { rows } = await app.db.query<{ status: string; n: number }>(
        'SELECT status, count(*)::int AS n FROM workflow_runs GROUP BY 1 ORDER BY 1',
      );
      expect(rows).toEqual([
        { status: 'dispatched', n: 5 },
        { status: 'queued', n: 25 },
      ]);
      const audits = await app.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM audit_log WHERE action = 'dispatched' AND entity_type = 'workflow_run' AND entity_id IN (SELECT id::text FROM workflow_runs)`,
      );
      expect(audits.rows[0]!.n).toBe(5);
    } finally {
      await app.db.query(`DELETE FROM agent_dispatch_controls WHERE agent_id = 'writer'`);
    }
  });

  it('recovers stale runs two batches at a time when the rule ends none of them, one at a time when it ends them', async () => {
    const type = await templateWithRoute(app, { agent: 'writer' });
    const stale = (attempts: number, n: number) =>
      app.db.query(
        `INSERT INTO workflow_runs (id, workflow_type, status, dispatch_attempts, dispatched_at, target_agent_id, created_at)
         SELECT gen_random_uuid(), $1, 'dispatched', $2, $3::timestamptz - interval '6 minutes', 'writer', now() FROM generate_series(1, $4)`,
        [type, attempts, clock.now(), n],
      );
    await stale(recoveryRules.maxDispatchAttempts, 20);
    const failing = watchedDeps();
    expect((await coreTick(failing.deps, { batchSize: 5 })).recovered).toMatchObject({ failed: 20, redispatched: 0 });
    expect(failing.mostAtOnce()).toBe(1);

    await app.db.query('DELETE FROM workflow_runs');
    await stale(1, 40);
    const redispatching = watchedDeps();
    expect((await coreTick(redispatching.deps, { batchSize: 5 })).recovered).toMatchObject({ failed: 0, redispatched: 40 });
    expect(redispatching.mostAtOnce()).toBe(2);
    const { rows } = await app.db.query('SELECT dispatch_attempts, count(*)::int AS n FROM workflow_runs GROUP BY 1');
    expect(rows).toEqual([{ dispatch_attempts: 2, n: 40 }]);
    const audits = await app.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM audit_log WHERE action = 'redispatched' AND entity_id IN (SELECT id::text FROM workflow_runs)`,
    );
    expect(audits.rows[0]!.n).toBe(40);
  });

  it('a routing cap set as an uncapped tick starts is held too: the candidate that carries it sends its batch back, exclusive', async () => {
    const type = await templateWithRoute(app, { agent: 'writer' });
    await queuedInOrder(type, 30);
    const watched = cappedAfterTheCheck({
      method: 'PUT',
      path: `/api/workflow-routing/${type}`,
      body: { agent_id: 'writer', max_concurrent: 7 },
    });
    const summary = await coreTick(watched.deps, { batchSize: 5 });
    expect(watched.capSet()).toBe(true);
    expect(summary).toMatchObject({ dispatched: 7, capped: { workflowType: 23, agent: 0, fleet: 0 } });
    const { rows } = await app.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM workflow_runs WHERE status = 'dispatched'`);
    expect(rows[0]!.n).toBe(7);
  });

  it('with a cap, or a budget that may hold runs, batches go one at a time as before; a warn budget does not couple them', async () => {
    const type = await templateWithRoute(app, { agent: 'writer' });
    await app.call('PUT', `/api/workflow-routing/${type}`, { body: { agent_id: 'writer', max_concurrent: 12 } });
    await queuedInOrder(type, 30);
    const capped = watchedDeps();
    expect(await coreTick(capped.deps, { batchSize: 5 })).toMatchObject({ dispatched: 12, capped: { workflowType: 18 } });
    expect(capped.mostAtOnce()).toBe(1);

    await app.call('PUT', `/api/workflow-routing/${type}`, { body: { agent_id: 'writer' } });
    const budgets: string[] = [];
    try {
      const warn = await app.call('POST', '/api/budgets', {
        body: { name: 'lanes warn', scope: 'agent', scope_id: 'writer', period: 'daily', cap_usd: 5, action_on_exceed: 'warn' },
      });
      expect(warn.status).toBe(201);
      budgets.push(warn.body.budget.id);
      await app.db.query(`UPDATE workflow_runs SET status = 'completed', finished_at = $1 WHERE status = 'dispatched'`, [clock.now()]);
      await queuedInOrder(type, 12);
      const warned = watchedDeps();
      expect(await coreTick(warned.deps, { batchSize: 5 })).toMatchObject({ dispatched: 30 });
      expect(warned.mostAtOnce()).toBe(2);

      const pause = await app.call('POST', '/api/budgets', {
        body: { name: 'lanes pause', scope: 'fleet', period: 'monthly', cap_usd: 5, action_on_exceed: 'pause_new_runs' },
      });
      expect(pause.status).toBe(201);
      budgets.push(pause.body.budget.id);
      await queuedInOrder(type, 12);
      const paused = watchedDeps();
      expect(await coreTick(paused.deps, { batchSize: 5 })).toMatchObject({ dispatched: 12 });
      expect(paused.mostAtOnce()).toBe(1);
    } finally {
      for (const id of budgets) await app.call('PATCH', `/api/budgets/${id}`, { body: { active: false } });
    }
  });
});

describe('releasing the tasks of ended runs', () => {
  it('locks every task first, in id order: with the later task held elsewhere, the earlier one is already locked while it waits', async () => {
    const project = await app.call('POST', '/api/projects', { body: { name: 'ended runs' } });
    const { rows: tasks } = await app.db.query<{ id: string }>(
      `INSERT INTO tasks (id, project_id, title) SELECT gen_random_uuid(), $1, 'ended ' || g FROM generate_series(1, 2) g RETURNING id`,
      [project.body.id],
    );
    const [first, second] = tasks.map((t) => t.id).sort();
    const type = await templateWithRoute(app);
    const { rows: runs } = await app.db.query<{ id: string; task_id: string }>(
      `INSERT INTO workflow_runs (id, workflow_type, status, task_id, finished_at) SELECT gen_random_uuid(), $1, 'failed', t, now() FROM unnest($2::uuid[]) t RETURNING id, task_id`,
      [type, [second, first]],
    );
    for (const run of runs) await app.db.query('UPDATE tasks SET active_workflow_run_id = $2 WHERE id = $1', [run.task_id, run.id]);
    const ended = runs.map((r) => ({ ...r, status: 'failed', owner_agent_id: null, target_agent_id: null }));

    const holder = new pg.Client({ connectionString: app.databaseUrl });
    const prober = new pg.Client({ connectionString: app.databaseUrl });
    await holder.connect();
    await prober.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM tasks WHERE id = $1 FOR UPDATE', [second]);
      const pid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      // the runs in the order a join over them would lock their tasks: the later task first
      const releasing = app.db.transaction((tx) => releaseTasksOfEndedRuns(app.ctx.deps, tx, ended));
      let waiting = false;
      for (let i = 0; i < 500 && !waiting; i++) {
        const { rows } = await prober.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))',
          [pid],
        );
        waiting = rows[0]!.n > 0;
      }
      expect(waiting).toBe(true);
      await expect(prober.query('SELECT 1 FROM tasks WHERE id = $1 FOR UPDATE NOWAIT', [first])).rejects.toMatchObject({ code: '55P03' });
      await holder.query('ROLLBACK');
      await releasing;
      const { rows } = await app.db.query(
        'SELECT count(*)::int AS n FROM tasks WHERE id = ANY($1::uuid[]) AND active_workflow_run_id IS NOT NULL',
        [[first, second]],
      );
      expect(rows[0]).toEqual({ n: 0 });
    } finally {
      await holder.end();
      await prober.end();
    }
  });
});

describe('dispatcher stats and the tick endpoint', () => {
  it('reports queue counts, failure rate, route count and the last tick, over real HTTP', async () => {
    const type = await templateWithRoute(app);
    await createRun(app, type);
    const failed = await createRun(app, type);
    await app.db.query(`UPDATE workflow_runs SET status = 'failed', finished_at = $2 WHERE id = $1`, [failed.id, clock.now()]);
    const ticked = await app.http('POST', '/api/workflow-runs/dispatcher/tick');
    expect(ticked.status).toBe(200);
    expect(ticked.body.dispatched).toBe(1);
    const stats = await app.http('GET', '/api/workflow-runs/dispatcher/stats');
    expect(stats.status).toBe(200);
    expect(stats.body).toMatchObject({
      queue: { queued: 0, dispatched: 1, failed: 1, total: 2 },
      failure_rate: { window_hours: 24, finished: 1, failed: 1, rate: 1 },
      route_count: 1,
      last_tick: { source: 'api' },
      last_tick_summary: { dispatched: 1, budgetEnforcement: { held: 0, stopped: 0, warned: 0 } },
    });
  });
});
