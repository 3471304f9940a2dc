import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/use-app';

const app = useTestApp();

describe('governed actions over real HTTP', () => {
  it('50 concurrent executes of one run.cancel actionId cancel once: one executed receipt, 49 duplicates, one audit mirror', async () => {
    const { rows } = await app.db.query<{ id: string }>(
      `INSERT INTO workflow_runs (id, workflow_type, status) VALUES (gen_random_uuid(), 'x', 'running') RETURNING id`,
    );
    const runId = rows[0]!.id;
    const actionId = randomUUID();
    const envelope = { actionId, kind: 'run.cancel', targetId: runId, params: { reason: 'stop the line' } };
    const replies = await Promise.all(Array.from({ length: 50 }, () => app.http('POST', '/api/actions/execute', { body: envelope })));
    expect(replies.map((r) => r.status)).toEqual(Array(50).fill(200));
    expect(replies.filter((r) => r.body.duplicate === true)).toHaveLength(49);
    const fresh = replies.find((r) => r.body.duplicate === undefined)!;
    expect(fresh.body.receipt).toMatchObject({ action_id: actionId, outcome: 'executed' });
    const audit = await app.db.query<{ action: string; n: number }>(
      `SELECT action, count(*)::int AS n FROM audit_log WHERE entity_id IN ($1, $2) GROUP BY action ORDER BY action`,
      [runId, actionId],
    );
    expect(audit.rows).toEqual([
      { action: 'action.run.cancel', n: 1 },
      { action: 'status_changed', n: 1 },
    ]);
    expect((await app.db.query('SELECT count(*)::int AS n FROM action_receipts WHERE action_id = $1', [actionId])).rows[0]).toEqual({
      n: 1,
    });
  });
});
