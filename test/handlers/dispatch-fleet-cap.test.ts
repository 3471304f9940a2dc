import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/use-app';
import { createRun, fakeRuntime, fakeTime, templateWithRoute } from './workflow-support';

/** DISPATCH_MAX_IN_FLIGHT caps the live runs of the whole fleet, across concurrent ticks. */

const app = useTestApp({ env: { DISPATCH_MAX_IN_FLIGHT: '4' } }, { afterClose: () => delete process.env.DISPATCH_MAX_IN_FLIGHT });

describe('fleet-wide in-flight cap', () => {
  it('never holds more than DISPATCH_MAX_IN_FLIGHT live runs, whatever the agents, and counts the rest as capped by the fleet', async () => {
    const clock = fakeTime(app);
    fakeRuntime(app);
    const types = [await templateWithRoute(app, { agent: 'a' }), await templateWithRoute(app, { agent: 'b' }), await templateWithRoute(app, { agent: 'c' })];
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
});
