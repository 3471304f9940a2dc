import fc from 'fast-check';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useTestApp } from '../support/use-app';
import { claimedRun, createRun, fakeRuntime, fakeTime, templateWithRoute, tick } from './workflow-support';

/** Task claim leases with fencing tokens, released by the tick, a later claim, or the run's end. */

const app = useTestApp();
let clock: ReturnType<typeof fakeTime>;
let project: string;
beforeAll(async () => {
  project = (await app.call('POST', '/api/projects', { body: { name: 'Leases' } })).body.id;
});
beforeEach(async () => {
  clock = fakeTime(app);
  fakeRuntime(app);
  // each case counts the leases it lapses itself
  await app.db.query('UPDATE tasks SET locked_by = NULL, locked_at = NULL, lease_expires_at = NULL');
});

const SEC = 1000;

async function newTask(title = 'leased') {
  const res = await app.call('POST', '/api/tasks', { body: { project_id: project, title } });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const claim = (task_id: string, agent_name: string, extra: Record<string, unknown> = {}) =>
  app.call('POST', '/api/agent/claim', { body: { task_id, agent_name, ...extra } });
const renew = (task_id: string, agent_name: string, lock_token: unknown, extra: Record<string, unknown> = {}) =>
  app.call('POST', '/api/agent/claim/renew', { body: { task_id, agent_name, lock_token, ...extra } });

async function taskRow(id: string) {
  const { rows } = await app.db.query<Record<string, unknown>>(
    'SELECT locked_by, locked_at, lease_expires_at, lock_generation AS lock_token FROM tasks WHERE id = $1',
    [id],
  );
  return rows[0]!;
}

async function audit(taskId: string) {
  const { rows } = await app.db.query<{ action: string; actor: string }>(
    `SELECT action, actor FROM audit_log WHERE entity_type = 'task' AND entity_id = $1 ORDER BY id`,
    [taskId],
  );
  return rows.map((r) => `${r.action}:${r.actor}`);
}

describe('claim leases', () => {
  it('answers lease_expires_at (default 1800 s, or lease_seconds) and a lock_token that grows with every claim', async () => {
    const id = await newTask();
    const first = await claim(id, 'alpha');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      locked_by: 'alpha',
      locked_at: '2026-11-01T12:00:00.000Z',
      lease_expires_at: '2026-11-01T12:30:00.000Z',
      lock_token: 1,
    });
    expect((await app.call('POST', '/api/agent/release', { body: { task_id: id, agent_name: 'alpha' } })).status).toBe(200);
    expect(await taskRow(id)).toMatchObject({ locked_by: null, lease_expires_at: null, lock_token: 1 });
    const second = await claim(id, 'beta', { lease_seconds: 60 });
    expect(second.body).toMatchObject({ locked_by: 'beta', lease_expires_at: '2026-11-01T12:01:00.000Z', lock_token: 2 });
    expect((await app.call('GET', `/api/tasks/${id}`)).body).toMatchObject({ lease_expires_at: '2026-11-01T12:01:00.000Z', lock_token: 2 });
  });

  it('refuses lease_seconds outside 30..86400 or not whole with 400 naming the field, and claims nothing', async () => {
    const id = await newTask();
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.integer({ min: -100_000, max: 29 }),
          fc.integer({ min: 86_401, max: 10_000_000 }),
          fc.double({ min: 30.01, max: 86_399.99, noInteger: true }),
          fc.string(),
        ),
        async (lease) => {
          const res = await claim(id, 'alpha', { lease_seconds: lease });
          expect(res.status).toBe(400);
          expect(res.body.error).toContain('lease_seconds');
        },
      ),
      { numRuns: 25 },
    );
    expect(await taskRow(id)).toMatchObject({ locked_by: null, lock_token: 0 });
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 30, max: 86_400 }), async (lease) => {
        const res = await claim(id, 'alpha', { lease_seconds: lease });
        expect(res.status).toBe(200);
        expect(new Date(res.body.lease_expires_at).getTime() - clock.now().getTime()).toBe(lease * SEC);
        expect((await app.call('POST', '/api/agent/release', { body: { task_id: id } })).status).toBe(200);
      }),
      { numRuns: 10 },
    );
  });

  it('renews only for the holder with the current lock_token; anything else is 409 and changes nothing', async () => {
    const id = await newTask();
    const token = (await claim(id, 'alpha', { lease_seconds: 60 })).body.lock_token;
    clock.advance(30 * SEC);
    const renewed = await renew(id, 'alpha', token, { lease_seconds: 600 });
    expect(renewed.status).toBe(200);
    expect(renewed.body).toMatchObject({ locked_by: 'alpha', lock_token: token, lease_expires_at: '2026-11-01T12:10:30.000Z' });
    const before = await taskRow(id);
    const wrongAgent = await renew(id, 'mallory', token);
    expect(wrongAgent.status).toBe(409);
    expect(wrongAgent.body).toMatchObject({ reason: 'not_lock_holder', locked_by: 'alpha' });
    const stale = await renew(id, 'alpha', token + 5);
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ reason: 'stale_lock_token', lock_token: token });
    expect(await taskRow(id)).toEqual(before);
    clock.advance(601 * SEC);
    const lapsed = await renew(id, 'alpha', token);
    expect(lapsed.status).toBe(409);
    expect(lapsed.body.reason).toBe('lease_expired');
    expect(await taskRow(id)).toEqual(before);
    expect(await audit(id)).toEqual(['created:dashboard-operator', 'claimed:alpha', 'lease_renewed:alpha']);
    for (const [body, field] of [
      [{ task_id: id, agent_name: 'alpha' }, 'lock_token'],
      [{ task_id: id, agent_name: 'alpha', lock_token: 'one' }, 'lock_token'],
      [{ task_id: id, agent_name: 'alpha', lock_token: token, lease_seconds: 5 }, 'lease_seconds'],
      [{ task_id: 'nope', agent_name: 'alpha', lock_token: token }, 'task_id'],
    ] as const) {
      const res = await app.call('POST', '/api/agent/claim/renew', { body });
      expect(res.status).toBe(400);
      expect(res.body.error).toContain(field);
    }
    expect((await renew('00000000-0000-4000-8000-000000000000', 'alpha', 1)).status).toBe(404);
  });

  it('refuses a release with a stale lock_token (409) and keeps the spec release without one', async () => {
    const id = await newTask();
    const old = (await claim(id, 'zombie', { lease_seconds: 30 })).body.lock_token;
    clock.advance(31 * SEC);
    const current = (await claim(id, 'fresh')).body.lock_token;
    expect(current).toBe(old + 1);
    const zombie = await app.call('POST', '/api/agent/release', { body: { task_id: id, lock_token: old } });
    expect(zombie.status).toBe(409);
    expect(zombie.body.reason).toBe('stale_lock_token');
    expect((await taskRow(id)).locked_by).toBe('fresh');
    expect((await app.call('POST', '/api/agent/release', { body: { task_id: id, agent_name: 'fresh', lock_token: current } })).status).toBe(
      200,
    );
    expect((await claim(id, 'third')).status).toBe(200);
    expect((await app.call('POST', '/api/agent/release', { body: { task_id: id, agent_name: 'third' } })).status).toBe(200);
  });

  it('a claim that finds a lapsed lease releases it (lease_expired by system) and takes the task with the next token', async () => {
    const id = await newTask();
    await claim(id, 'crashed', { lease_seconds: 30 });
    clock.advance(29 * SEC);
    expect((await claim(id, 'eager')).status).toBe(409);
    clock.advance(1 * SEC);
    const taken = await claim(id, 'eager');
    expect(taken.status).toBe(200);
    expect(taken.body).toMatchObject({ locked_by: 'eager', lock_token: 2 });
    expect(await audit(id)).toEqual(['created:dashboard-operator', 'claimed:crashed', 'lease_expired:system', 'claimed:eager']);
  });

  it('the dispatcher tick releases lapsed leases, once each, with an audit row and a task:changed event, and counts them', async () => {
    const a = await newTask('a');
    const b = await newTask('b');
    const c = await newTask('c');
    await claim(a, 'agent-a', { lease_seconds: 30 });
    await claim(b, 'agent-b', { lease_seconds: 60 });
    await claim(c, 'agent-c', { lease_seconds: 3600 });
    clock.advance(61 * SEC);
    const summary = await tick(app);
    expect(summary.leasesExpired).toBe(2);
    expect((await taskRow(a)).locked_by).toBeNull();
    expect((await taskRow(b)).locked_by).toBeNull();
    expect((await taskRow(c)).locked_by).toBe('agent-c');
    expect((await audit(a)).filter((x) => x.startsWith('lease_expired'))).toEqual(['lease_expired:system']);
    const { rows: events } = await app.db.query(
      `SELECT payload FROM event_outbox WHERE name = 'task:changed' AND payload->>'action' = 'lease_expired' AND payload->>'taskId' = ANY($1)`,
      [[a, b, c]],
    );
    expect(events).toHaveLength(2);
    expect((await tick(app)).leasesExpired).toBe(0);
    const stats = await app.call('GET', '/api/workflow-runs/dispatcher/stats');
    expect(stats.body.last_tick_summary.leasesExpired).toBe(0);
  });

  it("a run that ends releases the claim its agent holds on the run's task, and only that claim", async () => {
    const type = await templateWithRoute(app, { agent: 'writer' });
    for (const ending of ['complete', 'fail', 'cancel'] as const) {
      const task = await newTask(ending);
      const other = await newTask(`${ending}-other`);
      expect((await claim(task, 'writer')).status).toBe(200);
      expect((await claim(other, 'writer')).status).toBe(200);
      const run = await createRun(app, type, { task_id: task });
      await tick(app);
      const session = `agent:writer:subagent:${ending}`;
      expect(
        (await app.call('POST', `/api/workflow-runs/${run.id}/claim`, { body: { agent_id: 'writer', session_id: session } })).status,
      ).toBe(200);
      expect((await taskRow(task)).locked_by).toBe('writer');
      const end =
        ending === 'cancel'
          ? await app.call('POST', `/api/workflow-runs/${run.id}/cancel`, { body: {} })
          : await app.call('POST', `/api/workflow-runs/${run.id}/${ending}`, {
              body: ending === 'fail' ? { session_id: session, error: 'broke' } : { session_id: session },
            });
      expect(end.status, JSON.stringify(end.body)).toBe(200);
      expect((await taskRow(task)).locked_by).toBeNull();
      expect((await taskRow(other)).locked_by).toBe('writer');
      expect((await audit(task)).at(-1)).toBe('released:system');
    }
    // a claim by someone else stays
    const foreign = await newTask('foreign');
    await claim(foreign, 'reviewer');
    const { id } = await claimedRun(app, type);
    await app.db.query('UPDATE workflow_runs SET task_id = $2 WHERE id = $1', [id, foreign]);
    const { rows } = await app.db.query<{ claim_session_id: string }>('SELECT claim_session_id FROM workflow_runs WHERE id = $1', [id]);
    expect((await app.call('POST', `/api/workflow-runs/${id}/complete`, { body: { session_id: rows[0]!.claim_session_id } })).status).toBe(
      200,
    );
    expect((await taskRow(foreign)).locked_by).toBe('reviewer');
  });

  it("a run timed out by the tick releases its agent's claim in the same transaction", async () => {
    const type = await templateWithRoute(app, { agent: 'writer', timeout: 5 });
    const task = await newTask('timeout');
    await claim(task, 'writer', { lease_seconds: 86_400 });
    const run = await createRun(app, type, { task_id: task });
    await tick(app);
    const session = 'agent:writer:subagent:timeout';
    await app.call('POST', `/api/workflow-runs/${run.id}/claim`, { body: { agent_id: 'writer', session_id: session } });
    await app.call('POST', `/api/workflow-runs/${run.id}/start`, { body: { session_id: session } });
    clock.advance(6 * 60 * SEC);
    await app.call('POST', `/api/workflow-runs/${run.id}/heartbeat`, { body: { session_id: session } });
    const summary = await tick(app);
    expect(summary.recovered.timedOut).toBe(1);
    expect((await taskRow(task)).locked_by).toBeNull();
  });
});
