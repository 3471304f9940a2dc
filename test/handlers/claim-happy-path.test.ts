import fc from 'fast-check';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { claimTask } from '../../core/agents/locks';
import { claimRun } from '../../core/workflows/run-claim';
import { runEvent } from '../../core/workflows/run-store';
import type { Db } from '../../core/ports';
import { requireDb } from '../../core/storage';
import { taskColumns } from '../../core/tasks/task';
import { runColumns } from '../../core/workflows/run';
import { redactSecrets } from '../../core/secrets/redact';
import { useTestApp } from '../support/use-app';
import { createRun, fakeRuntime, templateWithRoute, tick } from './workflow-support';

/**
 * A claim of a free task is one statement that writes the row, its audit row, its state
 * snapshot and its event, with the row before the claim joined by its version; a claim of a
 * dispatched run writes its row with one UPDATE guarded by the row version it read, sent with
 * BEGIN, and derives the row before the claim from the row after it. Whatever the row held, the
 * answer, the audit row (before and after) and the state snapshot must be what the database held,
 * as they were when the claim re-read the row under its lock; a row that moves between the read
 * and the write must never be recorded as if it had not.
 */
const app = useTestApp();
let project: string;
beforeAll(async () => {
  project = (await app.call('POST', '/api/projects', { body: { name: 'Happy claims' } })).body.id;
});

/** The task as the database holds it, as JSON (what a read of the row answers). */
async function stored(id: string): Promise<Record<string, unknown>> {
  const { rows } = await app.db.query(`SELECT ${taskColumns} FROM tasks WHERE id = $1`, [id]);
  return JSON.parse(JSON.stringify(rows[0]));
}

/**
 * The claim's audit row must start where the entity stood: its old value is the state recorded
 * just before the claim's own snapshot (a change that landed between the claim's read and its
 * write shows here), and its new value the claim's snapshot.
 */
async function expectClaimChained(entityId: string): Promise<void> {
  const { rows: states } = await app.db.query<{ state: unknown; reason: string }>(
    `SELECT state, reason FROM entity_snapshots WHERE entity_id = $1 ORDER BY seq`,
    [entityId],
  );
  const at = states.findIndex((s) => s.reason === 'claimed');
  expect(at).toBeGreaterThan(0);
  const { rows: audit } = await app.db.query<{ old_value: unknown; new_value: unknown }>(
    `SELECT old_value, new_value FROM audit_log WHERE entity_id = $1 AND action = 'claimed'`,
    [entityId],
  );
  expect(audit).toEqual([{ old_value: redactSecrets(states[at - 1]!.state), new_value: redactSecrets(states[at]!.state) }]);
}

/** The members that hold a Date, as the driver answers timestamps: JSON writes them as it writes their ISO text. */
const dateColumns = (row: object) => Object.entries(row).flatMap(([column, value]) => (value instanceof Date ? [column] : []));

/**
 * The app's ports with a Db that records what a use case sends: each statement, transaction and
 * commit write. The outbox's sequencing pass, which a committed event asks for on the same Db, is
 * the bus's follow-up, not a round trip of the use case, and is left out.
 */
function countedDeps() {
  const calls: string[] = [];
  const pool = requireDb(app.ctx.deps.storage);
  const counted: Db = {
    ...pool,
    inTransaction: false,
    query: (sql, params) => (sql.includes('event_outbox_sequence') || calls.push('query'), pool.query(sql, params)),
    transaction: (work) => (calls.push('transaction'), pool.transaction(work)),
    writeAtCommit: (sql, params) => (calls.push('writeAtCommit'), pool.writeAtCommit(sql, params)),
    afterCommit: (callback) => pool.afterCommit(callback),
  };
  return { deps: { ...app.ctx.deps, storage: { ...app.ctx.deps.storage, db: counted } }, calls };
}

const taskArb = fc.record(
  {
    title: fc.string({ maxLength: 20 }).map((t) => `task ${t}`),
    description: fc.string({ maxLength: 20 }),
    priority: fc.constantFrom('low', 'medium', 'high', 'critical'),
    labels: fc.array(
      fc.string({ minLength: 1, maxLength: 6 }).filter((l) => l.trim().length > 0),
      { maxLength: 3 },
    ),
    estimated_effort: fc.double({ min: 0, max: 1000, noNaN: true }),
    metadata: fc.record({ note: fc.string({ maxLength: 8 }), api_key: fc.string({ maxLength: 8 }) }, { requiredKeys: [] }),
  },
  { requiredKeys: ['title'] },
);

describe('claiming a free task', () => {
  it('answers, audits and snapshots exactly the row it wrote, for any task and lease', async () => {
    await fc.assert(
      fc.asyncProperty(taskArb, fc.integer({ min: 30, max: 86_400 }), fc.boolean(), async (fields, lease, claimedBefore) => {
        const created = await app.call('POST', '/api/tasks', { body: { project_id: project, ...fields } });
        expect(created.status).toBe(201);
        const id = created.body.id as string;
        if (claimedBefore) {
          // a task claimed and released before: a later fencing token, the release's columns
          expect((await app.call('POST', '/api/agent/claim', { body: { task_id: id, agent_name: 'earlier' } })).status).toBe(200);
          expect((await app.call('POST', '/api/agent/release', { body: { task_id: id, agent_name: 'earlier' } })).status).toBe(200);
        }
        const before = await stored(id);

        const claimed = await app.call('POST', '/api/agent/claim', { body: { task_id: id, agent_name: 'happy', lease_seconds: lease } });
        expect(claimed.status).toBe(200);
        const after = await stored(id);
        expect(claimed.body).toEqual(after);
        expect(after).toMatchObject({ locked_by: 'happy', lock_token: (before.lock_token as number) + 1 });
        expect(Date.parse(after.lease_expires_at as string) - Date.parse(after.locked_at as string)).toBe(lease * 1000);

        const { rows: audit } = await app.db.query<{ actor: string; old_value: unknown; new_value: unknown }>(
          `SELECT actor, old_value, new_value FROM audit_log WHERE entity_type = 'task' AND entity_id = $1 AND action = 'claimed' ORDER BY id DESC LIMIT 1`,
          [id],
        );
        expect(audit[0]).toEqual({ actor: 'happy', old_value: redactSecrets(before), new_value: redactSecrets(after) });
        const { rows: snapshot } = await app.db.query<{ state: unknown }>(
          `SELECT state FROM entity_snapshots WHERE entity_type = 'task' AND entity_id = $1 ORDER BY created_at DESC, seq DESC LIMIT 1`,
          [id],
        );
        expect(snapshot[0]!.state).toEqual(after);
      }),
      { numRuns: 15 },
    );
  });

  it('never answers or records a row that moved between its read and its write: the last snapshot is the row, the claim starts from the one before', async () => {
    for (let round = 0; round < 40; round++) {
      const id = (await app.call('POST', '/api/tasks', { body: { project_id: project, title: 'moving' } })).body.id as string;
      // a PATCH racing the claim: it lands before the claim's read, between its read and its write, or after
      const [claimed, patched] = await Promise.all([
        app.call('POST', '/api/agent/claim', { body: { task_id: id, agent_name: 'racer' } }),
        app.call('PATCH', `/api/tasks/${id}`, { body: { title: `moved ${round}` } }),
      ]);
      expect([claimed.status, patched.status]).toEqual([200, 200]);
      const { rows } = await app.db.query<{ state: unknown }>(
        `SELECT state FROM entity_snapshots WHERE entity_type = 'task' AND entity_id = $1 ORDER BY seq DESC LIMIT 1`,
        [id],
      );
      expect(rows[0]!.state).toEqual(await stored(id));
      expect(claimed.body.title === 'moving' || claimed.body.title === `moved ${round}`).toBe(true);
      await expectClaimChained(id);
    }
  });

  it('claims a free task in one statement with its traces and event, and answers 409 for a held one from the same statement', async () => {
    const id = (await app.call('POST', '/api/tasks', { body: { project_id: project, title: 'one trip' } })).body.id as string;
    const { deps, calls } = countedDeps();

    const task = await claimTask(deps, { task_id: id, agent_name: 'one-trip' });
    expect(calls).toEqual(['query']);
    // the answer is the row as the driver reads it, members in column order
    const { rows: read } = await app.db.query(`SELECT ${taskColumns} FROM tasks WHERE id = $1`, [id]);
    expect(JSON.stringify(task)).toBe(JSON.stringify(read[0]));
    expect(dateColumns(task)).toEqual(dateColumns(read[0]!));
    const { rows: audit } = await app.db.query(
      `SELECT actor, project_id, task_id FROM audit_log WHERE entity_id = $1 AND action = 'claimed'`,
      [id],
    );
    expect(audit).toEqual([{ actor: 'one-trip', project_id: project, task_id: id }]);
    // the event row is written by the statement and sequenced after it, as a published one is
    await vi.waitFor(async () => {
      const { rows } = await app.db.query<{ position: number | null; payload: unknown }>(
        `SELECT position, payload FROM event_outbox WHERE name = 'task:changed' AND payload->>'taskId' = $1 AND payload->>'action' = 'claimed'`,
        [id],
      );
      expect(rows).toHaveLength(1);
      expect(rows[0]!.position).not.toBeNull();
    });

    calls.length = 0;
    await expect(claimTask(deps, { task_id: id, agent_name: 'late' })).rejects.toMatchObject({
      code: 'conflict',
      extra: { locked_by: 'one-trip' },
    });
    expect(calls).toEqual(['query']);
  });

  it('of many agents claiming one free task at once, one wins, the rest get 409, and one claim is audited', async () => {
    const id = (await app.call('POST', '/api/tasks', { body: { project_id: project, title: 'contested' } })).body.id as string;
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_x, i) => app.call('POST', '/api/agent/claim', { body: { task_id: id, agent_name: `racer-${i}` } })),
    );
    const winners = answers.filter((a) => a.status === 200);
    expect(winners).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(11);
    expect(winners[0]!.body).toEqual(await stored(id));
    const { rows } = await app.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM audit_log WHERE entity_id = $1 AND action = 'claimed'`,
      [id],
    );
    expect(rows[0]!.n).toBe(1);
  });
});

/** The run as the database holds it, as JSON. */
async function storedRun(id: string): Promise<Record<string, unknown>> {
  const { rows } = await app.db.query(`SELECT ${runColumns} FROM workflow_runs WHERE id = $1`, [id]);
  return JSON.parse(JSON.stringify(rows[0]));
}

async function lastSnapshot(id: string): Promise<unknown> {
  const { rows } = await app.db.query<{ state: unknown }>(
    `SELECT state FROM entity_snapshots WHERE entity_id = $1 ORDER BY seq DESC LIMIT 1`,
    [id],
  );
  return rows[0]!.state;
}

describe('claims on an event bus that cannot write its row in the claim statement', () => {
  it('claim a task and a run the locked way, with the same traces and events', async () => {
    const counted = countedDeps();
    // a bus with publish only (no EventBus.inline): the claims take the transaction under the row lock
    const deps = { ...counted.deps, events: { publish: app.ctx.deps.events.publish } };
    const id = (await app.call('POST', '/api/tasks', { body: { project_id: project, title: 'no inline' } })).body.id as string;
    const task = await claimTask(deps, { task_id: id, agent_name: 'plain-bus' });
    expect(counted.calls).toContain('transaction');
    expect(JSON.parse(JSON.stringify(task))).toEqual(await stored(id));
    await expectClaimChained(id);

    fakeRuntime(app);
    const run = await createRun(app, await templateWithRoute(app));
    await tick(app);
    counted.calls.length = 0;
    const answer = await claimRun(deps, run.id, { agent_id: 'plain-bus', session_id: 'agent:plain-bus:main:one' });
    expect(counted.calls).toContain('transaction');
    expect(JSON.parse(JSON.stringify(answer.run))).toEqual(await storedRun(run.id));
    await expectClaimChained(run.id);
    const { rows } = await app.db.query<{ name: string }>(
      `SELECT name FROM event_outbox WHERE payload->>'taskId' = $1 OR payload->>'runId' = $2 ORDER BY id`,
      [id, run.id],
    );
    expect(rows.map((r) => r.name)).toEqual(expect.arrayContaining(['task:changed', 'run-updated']));
  });
});

describe('claiming a dispatched run', () => {
  it('answers, audits and snapshots exactly the row it wrote, with or without a task, an owner or secrets in its input', async () => {
    fakeRuntime(app);
    const flow = await templateWithRoute(app);
    const task = (await app.call('POST', '/api/tasks', { body: { project_id: project, title: 'run task' } })).body.id as string;
    const secretArb = fc.option(fc.string({ maxLength: 8 }), { nil: undefined });
    // what only the database holds: microsecond timestamps, floats PostgreSQL prints with an exponent, counts beyond 32 bits
    const oddArb = fc.record({
      cost: fc.constantFrom(null, 1e-7, 0.1 + 0.2, 123.456, 5e-324, 1e20, Number.NaN),
      tokens: fc.constantFrom(null, 0, 2 ** 40 + 7),
      micros: fc.integer({ min: 0, max: 999_999 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.option(fc.constantFrom('owner-a', 'owner-b'), { nil: undefined }),
        secretArb,
        fc.jsonValue({ maxDepth: 2 }),
        oddArb,
        async (withTask, owner, secret, brief, odd) => {
          const input_payload = { brief, ...(secret === undefined ? {} : { api_key: secret }) };
          const run = await createRun(app, flow, {
            ...(withTask ? { task_id: task } : {}),
            ...(owner ? { owner_agent_id: owner } : {}),
            input_payload,
          });
          await tick(app);
          await app.db.query(
            `UPDATE workflow_runs SET cost_estimate = $2, input_tokens = $3, reported_at = '2026-11-26 10:20:30'::timestamptz + make_interval(secs => $4::float8 / 1e6) WHERE id = $1`,
            [run.id, odd.cost, odd.tokens, odd.micros],
          );
          const before = await storedRun(run.id);
          expect(before.status).toBe('dispatched');
          const session = `agent:writer:subagent:${run.id.slice(0, 8)}`;
          const claimed = await app.call('POST', `/api/workflow-runs/${run.id}/claim`, {
            body: { agent_id: 'writer', session_id: session },
          });
          expect(claimed.status).toBe(200);
          const after = await storedRun(run.id);
          expect(claimed.body).toMatchObject({ claimed: true, already: false, run: after });
          expect(after).toMatchObject({ status: 'claimed', claim_session_id: session, owner_agent_id: owner ?? 'writer' });
          const { rows: audit } = await app.db.query<{ old_value: unknown; new_value: unknown }>(
            `SELECT old_value, new_value FROM audit_log WHERE entity_type = 'workflow_run' AND entity_id = $1 AND action = 'claimed'`,
            [run.id],
          );
          expect(audit).toEqual([{ old_value: redactSecrets(before), new_value: redactSecrets(after) }]);
          expect(await lastSnapshot(run.id)).toEqual(after);
          if (withTask) {
            const { rows } = await app.db.query<{ active: string }>('SELECT active_workflow_run_id AS active FROM tasks WHERE id = $1', [
              task,
            ]);
            expect(rows[0]!.active).toBe(run.id);
          }
          // the same session's retry answers the claim without writing
          const again = await app.call('POST', `/api/workflow-runs/${run.id}/claim`, { body: { agent_id: 'writer', session_id: session } });
          expect(again.body).toMatchObject({ claimed: true, already: true });
        },
      ),
      { numRuns: 20 },
    );
  });

  it('claims a dispatched run in one statement with its traces and event, and answers 409 to another session from the same statement', async () => {
    fakeRuntime(app);
    const flow = await templateWithRoute(app);
    const task = (await app.call('POST', '/api/tasks', { body: { project_id: project, title: 'one trip run' } })).body.id as string;
    const run = await createRun(app, flow, { task_id: task });
    await tick(app);
    // a pointer that lost its run (set by hand here): the claim points the task at its live run again
    await app.db.query('UPDATE tasks SET active_workflow_run_id = NULL WHERE id = $1', [task]);
    const { deps, calls } = countedDeps();

    const answer = await claimRun(deps, run.id, { agent_id: 'writer', session_id: 'agent:writer:main:one' });
    expect(calls).toEqual(['query']);
    const { rows: read } = await app.db.query(`SELECT ${runColumns} FROM workflow_runs WHERE id = $1`, [run.id]);
    // the answer is the row as the driver reads it, members in column order
    expect(JSON.stringify(answer)).toBe(JSON.stringify({ claimed: true, already: false, run: read[0] }));
    expect(dateColumns(answer.run)).toEqual(dateColumns(read[0]!));
    const { rows: pointer } = await app.db.query('SELECT active_workflow_run_id AS active FROM tasks WHERE id = $1', [task]);
    expect(pointer).toEqual([{ active: run.id }]);
    await vi.waitFor(async () => {
      const { rows } = await app.db.query<{ position: number | null; payload: unknown }>(
        `SELECT position, payload FROM event_outbox WHERE name = 'run-updated' AND payload->>'runId' = $1 AND payload->>'action' = 'claimed'`,
        [run.id],
      );
      expect(rows).toEqual([{ position: expect.any(Number), payload: runEvent('claimed', answer.run).payload }]);
    });

    calls.length = 0;
    await expect(claimRun(deps, run.id, { agent_id: 'other', session_id: 'agent:other:main:two' })).rejects.toMatchObject({
      code: 'conflict',
      extra: { reason: 'already_claimed' },
    });
    expect(calls).toEqual(['query']);
  });

  it('never records a run that moved between its read and its write: the last snapshot is the row, the claim starts from the one before', async () => {
    fakeRuntime(app);
    const flow = await templateWithRoute(app);
    for (let round = 0; round < 30; round++) {
      const run = await createRun(app, flow);
      await tick(app);
      const [claimed, patched] = await Promise.all([
        app.call('POST', `/api/workflow-runs/${run.id}/claim`, {
          body: { agent_id: 'writer', session_id: `agent:writer:subagent:r${round}` },
        }),
        app.call('PATCH', `/api/workflow-runs/${run.id}`, { body: { input_tokens: 100 + round } }),
      ]);
      expect([claimed.status, patched.status]).toEqual([200, 200]);
      expect(await lastSnapshot(run.id)).toEqual(await storedRun(run.id));
      await expectClaimChained(run.id);
    }
  });
});
