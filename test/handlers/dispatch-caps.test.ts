import { describe, expect, it } from 'vitest';
import { createRun, templateWithRoute, tick, useWorkflowApp } from './workflow-support';

/** Concurrency caps per workflow type and per agent, held across concurrent ticks. */

const app = useWorkflowApp({ emptyQueue: true });

const live = ['dispatched', 'claimed', 'running', 'waiting_for_approval'];

async function liveBy(column: 'workflow_type' | 'target_agent_id') {
  const { rows } = await app.db.query<{ k: string; n: number }>(
    `SELECT ${column} AS k, count(*)::int AS n FROM workflow_runs WHERE status = ANY($1) GROUP BY 1`,
    [live],
  );
  return Object.fromEntries(rows.map((r) => [r.k, r.n]));
}

async function queuedRuns(type: string, n: number) {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    ids.push((await createRun(app, type)).id);
    app.clock().advance(1000);
  }
  return ids;
}

async function putRoute(type: string, body: Record<string, unknown>) {
  const res = await app.call('PUT', `/api/workflow-routing/${type}`, { body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

describe('concurrency caps', () => {
  it('the operator start of a queued run obeys the caps: a full one leaves it queued with 409 reason capped', async () => {
    const type = await templateWithRoute(app);
    await putRoute(type, { agent_id: 'writer', max_concurrent: 1 });
    const [first, second] = await queuedRuns(type, 2);
    const started = await app.call('POST', `/api/workflow-runs/${first}/start`, { body: {} });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body).toMatchObject({ id: first, status: 'dispatched' });
    const refused = await app.call('POST', `/api/workflow-runs/${second}/start`, { body: {} });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ reason: 'capped', status: 'queued' });
    expect(await liveBy('workflow_type')).toEqual({ [type]: 1 });
  });

  it('a routing entry max_concurrent dispatches only that many live runs of its type, oldest first, and counts the rest as capped', async () => {
    const type = await templateWithRoute(app);
    expect(await putRoute(type, { agent_id: 'writer', max_concurrent: 2 })).toMatchObject({ max_concurrent: 2, exclusive_per_task: false });
    const ids = await queuedRuns(type, 5);
    const summary = await tick(app);
    expect(summary).toMatchObject({ dispatched: 2, capped: { workflowType: 3, agent: 0, fleet: 0 }, heldByPause: 0 });
    const { rows } = await app.db.query<{ id: string }>(`SELECT id FROM workflow_runs WHERE status = 'dispatched' ORDER BY created_at`);
    expect(rows.map((r) => r.id)).toEqual(ids.slice(0, 2));
    const stats = await app.call('GET', '/api/workflow-runs/dispatcher/stats');
    expect(stats.body.last_tick_summary.capped).toEqual({ workflowType: 3, agent: 0, fleet: 0 });
    expect(stats.body.capped).toEqual({ workflowType: 3, agent: 0, fleet: 0 });
    // a slot frees when a run ends; the next oldest takes it
    await app.call('POST', `/api/workflow-runs/${ids[0]}/cancel`, { body: {} });
    expect(await tick(app)).toMatchObject({ dispatched: 1, capped: { workflowType: 2 } });
    expect((await app.db.query(`SELECT status FROM workflow_runs WHERE id = $1`, [ids[2]])).rows[0]).toEqual({ status: 'dispatched' });
    // removing the cap (PUT without it) lets the rest go
    await putRoute(type, { agent_id: 'writer' });
    expect(await tick(app)).toMatchObject({ dispatched: 2, capped: { workflowType: 0 } });
  });

  it('an agent max_concurrent_runs (PUT /api/agents/:agent/limits) caps the runs dispatched to it across workflow types; other agents keep flowing', async () => {
    const a = await templateWithRoute(app, { agent: 'capped-agent' });
    const b = await templateWithRoute(app, { agent: 'capped-agent' });
    const c = await templateWithRoute(app, { agent: 'free-agent' });
    const put = await app.call('PUT', '/api/agents/capped-agent/limits', { body: { max_concurrent_runs: 2 } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ agent_id: 'capped-agent', max_concurrent_runs: 2, live_runs: 0, dispatch_paused_until: null });
    await queuedRuns(a, 2);
    await queuedRuns(b, 2);
    await queuedRuns(c, 3);
    expect(await tick(app)).toMatchObject({ dispatched: 5, capped: { agent: 2, workflowType: 0, fleet: 0 } });
    expect(await liveBy('target_agent_id')).toEqual({ 'capped-agent': 2, 'free-agent': 3 });
    expect((await app.call('GET', '/api/agents/capped-agent/limits')).body).toMatchObject({ max_concurrent_runs: 2, live_runs: 2 });
    expect((await app.call('GET', '/api/agents/unknown-agent/limits')).body).toEqual({
      agent_id: 'unknown-agent',
      max_concurrent_runs: null,
      dispatch_paused_until: null,
      pause_reason: null,
      live_runs: 0,
    });
    const { rows } = await app.db.query(`SELECT actor, action FROM audit_log WHERE entity_type = 'agent' AND entity_id = 'capped-agent'`);
    expect(rows).toEqual([{ actor: 'dashboard-operator', action: 'limits_updated' }]);
    expect(
      (await app.call('PUT', '/api/agents/capped-agent/limits', { body: { max_concurrent_runs: null } })).body.max_concurrent_runs,
    ).toBeNull();
    expect(await tick(app)).toMatchObject({ dispatched: 2, capped: { agent: 0 } });
  });

  it('refuses bad caps with 400 naming the field and changes nothing', async () => {
    const type = await templateWithRoute(app);
    for (const [body, field] of [
      [{ max_concurrent_runs: 0 }, 'max_concurrent_runs'],
      [{ max_concurrent_runs: 1.5 }, 'max_concurrent_runs'],
      [{ max_concurrent_runs: '3' }, 'max_concurrent_runs'],
      [{}, 'max_concurrent_runs'],
      [{ max_concurrent_runs: 2, extra: 1 }, 'extra'],
    ] as const) {
      const res = await app.call('PUT', '/api/agents/writer/limits', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toContain(field);
    }
    expect(
      (await app.call('PUT', `/api/workflow-routing/${type}`, { body: { agent_id: 'writer', max_concurrent: 0 } })).body.error,
    ).toContain('max_concurrent');
    expect((await app.call('GET', '/api/agents/writer/limits')).body.max_concurrent_runs).toBeNull();
    const { rows } = await app.db.query('SELECT count(*)::int AS n FROM agent_dispatch_controls');
    expect(rows[0]).toEqual({ n: 0 });
  });

  it('concurrent ticks on several runners never dispatch above a cap', async () => {
    const a = await templateWithRoute(app, { agent: 'agent-a' });
    const b = await templateWithRoute(app, { agent: 'agent-b' });
    const c = await templateWithRoute(app, { agent: 'agent-b' });
    await putRoute(a, { agent_id: 'agent-a', max_concurrent: 3 });
    await putRoute(b, { agent_id: 'agent-b', max_concurrent: 4 });
    await app.call('PUT', '/api/agents/agent-b/limits', { body: { max_concurrent_runs: 5 } });
    await queuedRuns(a, 10);
    await queuedRuns(b, 10);
    await queuedRuns(c, 10);
    for (let round = 0; round < 3; round++) {
      const ticks = await Promise.all(Array.from({ length: 4 }, () => app.http('POST', '/api/workflow-runs/dispatcher/tick')));
      expect(ticks.every((t) => t.status === 200)).toBe(true);
      const byType = await liveBy('workflow_type');
      const byAgent = await liveBy('target_agent_id');
      expect(byType[a]).toBe(3);
      expect(byType[b] ?? 0).toBeLessThanOrEqual(4);
      expect(byAgent['agent-b']).toBe(5);
      expect(ticks.reduce((n, t) => n + t.body.dispatched, 0)).toBe(round === 0 ? 8 : 2);
      // free one slot of each agent for the next round
      const { rows } = await app.db.query<{ id: string }>(
        `SELECT DISTINCT ON (target_agent_id) id FROM workflow_runs WHERE status = 'dispatched' ORDER BY target_agent_id, created_at`,
      );
      for (const r of rows) expect((await app.call('POST', `/api/workflow-runs/${r.id}/cancel`, { body: {} })).status).toBe(200);
    }
  });
});
