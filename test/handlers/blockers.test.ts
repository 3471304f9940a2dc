import { beforeEach, describe, expect, it } from 'vitest';
import { useTestApp } from '../support/use-app';
import { claimedRun, createRun, fakeRuntime, fakeTime, templateWithRoute, tick } from './workflow-support';

const app = useTestApp();
let clock: ReturnType<typeof fakeTime>;
beforeEach(() => {
  clock = fakeTime(app);
  fakeRuntime(app);
});

describe('blockers', () => {
  it('derives blockers from blocked tasks and from runs that cannot move on their own, with a summary by type', async () => {
    const { rows: p } = await app.db.query<{ id: string }>(`INSERT INTO projects (id, name) VALUES (gen_random_uuid(), 'B') RETURNING id`);
    const { rows: t } = await app.db.query<{ id: string }>(
      `INSERT INTO tasks (id, project_id, title, status, priority, metadata) VALUES
        (gen_random_uuid(), $1, 'waits on API', 'blocked', 'critical', '{"blocker_type": "external_api", "blocked_reason": "vendor API down"}'),
        (gen_random_uuid(), $1, 'waits on other task', 'blocked', 'medium', '{}'),
        (gen_random_uuid(), $1, 'fine', 'ready', 'medium', '{}') RETURNING id`,
      [p[0]!.id],
    );
    await app.db.query(`UPDATE tasks SET dependency_ids = ARRAY[$1::uuid] WHERE id = $2`, [t[0]!.id, t[1]!.id]);
    const type = await templateWithRoute(app);
    const waiting = await claimedRun(app, type);
    await app.call('POST', `/api/workflow-runs/${waiting.id}/start`, { body: { session_id: waiting.session } });
    await app.call('POST', `/api/workflow-runs/${waiting.id}/approvals`, { body: { session_id: waiting.session, step_name: 'review' } });
    const stale = await createRun(app, type);
    await tick(app);
    clock.advance(6 * 60_000);

    const res = await app.call('GET', '/api/blockers');
    expect(res.status).toBe(200);
    const byId = Object.fromEntries(res.body.blockers.map((b: { sourceId: string }) => [b.sourceId, b]));
    expect(byId[t[0]!.id]).toMatchObject({
      sourceType: 'task',
      blockerType: 'external_api',
      description: 'vendor API down',
      severity: 'high',
    });
    expect(byId[t[1]!.id]).toMatchObject({ sourceType: 'task', blockerType: 'dependency', severity: 'medium' });
    expect(byId[t[2]!.id]).toBeUndefined();
    expect(byId[waiting.id]).toMatchObject({
      sourceType: 'workflow_run',
      blockerType: 'approval',
      description: 'waiting for approval: review',
    });
    expect(byId[stale.id]).toMatchObject({ sourceType: 'workflow_run', blockerType: 'stale_run', severity: 'high' });

    const summary = await app.call('GET', '/api/blockers/summary');
    expect(summary.body.total).toBe(4);
    expect(summary.body.byType).toEqual(
      expect.arrayContaining([
        { blockerType: 'external_api', count: 1, severity: 'high' },
        { blockerType: 'dependency', count: 1, severity: 'medium' },
        { blockerType: 'approval', count: 1, severity: 'medium' },
        { blockerType: 'stale_run', count: 1, severity: 'high' },
      ]),
    );
  });
});
