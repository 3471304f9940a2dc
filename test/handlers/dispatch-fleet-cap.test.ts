import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/use-app';
import { createRun, fakeRuntime, fakeTime, templateWithRoute } from './workflow-support';

/**
 * The fleet cap: live runs of the whole fleet, across concurrent ticks. A row of settings
 * (PATCH /api/settings DISPATCH_MAX_IN_FLIGHT) like the two caps beside it; the environment variable
 * of the same name stands in while none is stored.
 */

const app = useTestApp({ env: { DISPATCH_MAX_IN_FLIGHT: '4' } }, { afterClose: () => delete process.env.DISPATCH_MAX_IN_FLIGHT });

describe('fleet-wide in-flight cap', () => {
  it('never holds more than DISPATCH_MAX_IN_FLIGHT live runs, whatever the agents, and counts the rest as capped by the fleet', async () => {
    const clock = fakeTime(app);
    fakeRuntime(app);
    const types = [
      await templateWithRoute(app, { agent: 'a' }),
      await templateWithRoute(app, { agent: 'b' }),
      await templateWithRoute(app, { agent: 'c' }),
    ];
    for (let i = 0; i < 12; i++) {
      await createRun(app, types[i % 3]!);
      clock.advance(1000);
    }
    const ticks = await Promise.all(Array.from({ length: 3 }, () => app.http('POST', '/api/workflow-runs/dispatcher/tick')));
    expect(ticks.reduce((n, t) => n + t.body.dispatched, 0)).toBe(4);
    expect(ticks.reduce((n, t) => n + t.body.capped.fleet, 0)).toBeGreaterThanOrEqual(8);
    const { rows } = await app.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM workflow_runs WHERE status = 'dispatched'`);
    expect(rows[0]).toEqual({ n: 4 });
  });

  it('takes the stored DISPATCH_MAX_IN_FLIGHT over the variable at the next tick, and the variable again once it is cleared', async () => {
    const clock = fakeTime(app);
    fakeRuntime(app);
    await app.db.query(
      `UPDATE workflow_runs SET status = 'completed' WHERE status = ANY('{dispatched,claimed,running,waiting_for_approval}')`,
    );
    const patched = await app.call('PATCH', '/api/settings', { body: { DISPATCH_MAX_IN_FLIGHT: 2 } });
    expect(patched.status).toBe(200);
    expect(patched.body.settings.DISPATCH_MAX_IN_FLIGHT).toBe(2);
    const type = await templateWithRoute(app, { agent: 'd' });
    for (let i = 0; i < 6; i++) {
      await createRun(app, type);
      clock.advance(1000);
    }
    const live = async () =>
      (await app.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM workflow_runs WHERE status = 'dispatched'`)).rows[0]!.n;
    const first = await app.http('POST', '/api/workflow-runs/dispatcher/tick');
    expect(first.body.dispatched).toBe(2);
    expect(first.body.capped.fleet).toBeGreaterThanOrEqual(1);
    expect(await live()).toBe(2);
    // cleared: the variable's 4 is the cap again
    expect((await app.call('PATCH', '/api/settings', { body: { DISPATCH_MAX_IN_FLIGHT: null } })).status).toBe(200);
    const second = await app.http('POST', '/api/workflow-runs/dispatcher/tick');
    expect(second.body.dispatched).toBe(2);
    expect(await live()).toBe(4);
    const { rows } = await app.db.query<{ new_value: Record<string, unknown> }>(
      `SELECT new_value FROM audit_log WHERE entity_type = 'settings' ORDER BY id`,
    );
    expect(rows.map((r) => r.new_value)).toEqual([{ DISPATCH_MAX_IN_FLIGHT: 2 }, { DISPATCH_MAX_IN_FLIGHT: null }]);
  });

  it('refuses a fleet cap that is not a positive whole number with 400, storing nothing', async () => {
    for (const bad of [0, -1, 2.5, 'many', true]) {
      const res = await app.call('PATCH', '/api/settings', { body: { DISPATCH_MAX_IN_FLIGHT: bad } });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/DISPATCH_MAX_IN_FLIGHT/);
    }
    const { rows } = await app.db.query(`SELECT 1 FROM settings WHERE key = 'DISPATCH_MAX_IN_FLIGHT'`);
    expect(rows).toEqual([]);
  });
});
