import { describe, expect, it } from 'vitest';
import { movableClock } from '../support/fakes';
import { useTestApp } from '../support/use-app';

/** A lease race: twenty agents claiming and renewing one task at once through the runner. */

const app = useTestApp();

describe('claim leases under contention', () => {
  it('of 20 agents claiming a lapsed task while its zombie holder renews and releases, exactly one holds it and stale tokens are refused', async () => {
    const clock = movableClock();
    app.ctx.deps.clock = clock;
    const project = (await app.http('POST', '/api/projects', { body: { name: 'Lease race' } })).body.id;
    const task = (await app.http('POST', '/api/tasks', { body: { project_id: project, title: 'contested lease' } })).body.id as string;
    const zombieToken = (await app.http('POST', '/api/agent/claim', { body: { task_id: task, agent_name: 'zombie', lease_seconds: 30 } }))
      .body.lock_token as number;
    clock.advance(31_000);

    const agents = Array.from({ length: 20 }, (_, i) => `agent-${i}`);
    const [claims, zombieRenew, zombieRelease] = await Promise.all([
      Promise.all(agents.map((agent_name) => app.http('POST', '/api/agent/claim', { body: { task_id: task, agent_name } }))),
      app.http('POST', '/api/agent/claim/renew', { body: { task_id: task, agent_name: 'zombie', lock_token: zombieToken } }),
      app.http('POST', '/api/agent/release', { body: { task_id: task, lock_token: zombieToken } }),
    ]);
    const winners = claims.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    expect(claims.every((r) => r.status === 200 || r.status === 409)).toBe(true);
    const winner = winners[0]!.body as { locked_by: string; lock_token: number };
    expect(winner.lock_token).toBe(zombieToken + 1);
    expect(zombieRenew.status).toBe(409);
    // the zombie's release either came first (then its lease was lapsed but still its own) or met a newer claim
    expect([200, 409, 404]).toContain(zombieRelease.status);
    if (zombieRelease.status === 409) expect(zombieRelease.body.reason).toBe('stale_lock_token');

    const renewals = await Promise.all(
      agents.flatMap((agent_name) =>
        [zombieToken, winner.lock_token].map((lock_token) =>
          app
            .http('POST', '/api/agent/claim/renew', { body: { task_id: task, agent_name, lock_token } })
            .then((r) => ({ agent_name, lock_token, r })),
        ),
      ),
    );
    const renewed = renewals.filter((x) => x.r.status === 200);
    expect(renewed.map((x) => [x.agent_name, x.lock_token])).toEqual([[winner.locked_by, winner.lock_token]]);
    expect(renewals.every((x) => x.r.status === 200 || x.r.status === 409)).toBe(true);

    const current = (await app.http('GET', `/api/tasks/${task}`)).body;
    expect(current).toMatchObject({ locked_by: winner.locked_by, lock_token: winner.lock_token });
    const { rows } = await app.db.query<{ action: string; n: number }>(
      `SELECT action, count(*)::int AS n FROM audit_log WHERE entity_type = 'task' AND entity_id = $1 AND action IN ('claimed', 'lease_expired', 'lease_renewed') GROUP BY action ORDER BY action`,
      [task],
    );
    const counts = Object.fromEntries(rows.map((r) => [r.action, r.n]));
    expect(counts.claimed).toBe(2);
    expect(counts.lease_renewed).toBe(1);
    // released lazily by the winning claim, or by the zombie's own release when that came first
    expect((counts.lease_expired ?? 0) + (zombieRelease.status === 200 ? 1 : 0)).toBe(1);
  });
});
