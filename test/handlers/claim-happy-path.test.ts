import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { taskColumns } from '../../core/tasks/task';
import { redactSecrets } from '../../core/secrets/redact';
import { useTestApp } from '../support/use-app';

/**
 * Issue 13: a claim of a free task writes its row with one UPDATE guarded by the row version it
 * read, sent with BEGIN, and derives the row before the claim from the row after it. Whatever the
 * task held, the answer, the audit row (before and after) and the state snapshot must be what the
 * database held, as they were when the claim re-read the row under its lock; a row that moves
 * between the read and the write must never be recorded as if it had not.
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

const taskArb = fc.record(
  {
    title: fc.string({ maxLength: 20 }).map((t) => `task ${t}`),
    description: fc.string({ maxLength: 20 }),
    priority: fc.constantFrom('low', 'medium', 'high', 'critical'),
    labels: fc.array(fc.string({ minLength: 1, maxLength: 6 }), { maxLength: 3 }),
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
        // its last change an instant ago, so the claim's updated_at is a new one
        await app.db.query(`UPDATE tasks SET updated_at = updated_at - interval '1 second' WHERE id = $1`, [id]);
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

  it('never answers or records a row that moved between its read and its write: the last snapshot is always the row', async () => {
    for (let round = 0; round < 40; round++) {
      const id = (await app.call('POST', '/api/tasks', { body: { project_id: project, title: 'moving' } })).body.id as string;
      await app.db.query(`UPDATE tasks SET updated_at = updated_at - interval '1 second' WHERE id = $1`, [id]);
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
    }
  });

  it('of many agents claiming one free task at once, one wins, the rest get 409, and one claim is audited', async () => {
    const id = (await app.call('POST', '/api/tasks', { body: { project_id: project, title: 'contested' } })).body.id as string;
    await app.db.query(`UPDATE tasks SET updated_at = updated_at - interval '1 second' WHERE id = $1`, [id]);
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_x, i) => app.call('POST', '/api/agent/claim', { body: { task_id: id, agent_name: `racer-${i}` } })),
    );
    const winners = answers.filter((a) => a.status === 200);
    expect(winners).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(11);
    expect(winners[0]!.body).toEqual(await stored(id));
    const { rows } = await app.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM audit_log WHERE entity_id = $1 AND action = 'claimed'`, [id]);
    expect(rows[0]!.n).toBe(1);
  });
});
