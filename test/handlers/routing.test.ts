import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRun, runStatus, tick, uniqueName, useWorkflowApp } from './workflow-support';

const app = useWorkflowApp();

async function template() {
  const name = uniqueName('route');
  await app.call('POST', '/api/workflow-templates', { body: { name, steps: ['a', 'b', 'c'] } });
  return name;
}

describe('workflow routing', () => {
  it('creates, reads, replaces and deletes a route, each change audited, and the next tick uses it without code changes', async () => {
    const type = await template();
    const run = await createRun(app, type);
    await tick(app);
    expect((await runStatus(app, run.id)).status).toBe('queued');
    const put = await app.call('PUT', `/api/workflow-routing/${type}`, {
      body: { agent_id: 'researcher', priority: 5, timeout_minutes: 15 },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ workflow_type: type, agent_id: 'researcher', priority: 5, timeout_minutes: 15 });
    expect((await app.call('GET', `/api/workflow-routing/${type}`)).body.agent_id).toBe('researcher');
    expect(
      (await app.call('GET', '/api/workflow-routing')).body.routes.some((r: { workflow_type: string }) => r.workflow_type === type),
    ).toBe(true);
    await tick(app);
    expect(await runStatus(app, run.id)).toMatchObject({ status: 'dispatched', target_agent_id: 'researcher' });
    const replaced = await app.call('PUT', `/api/workflow-routing/${type}`, { body: { agent_id: 'analyst' } });
    expect(replaced.body).toMatchObject({ agent_id: 'analyst', priority: 0, timeout_minutes: 60 });
    expect((await app.call('DELETE', `/api/workflow-routing/${type}`)).body).toEqual({ deleted: true, workflow_type: type });
    expect((await app.call('GET', `/api/workflow-routing/${type}`)).status).toBe(404);
    expect((await app.call('DELETE', `/api/workflow-routing/${type}`)).status).toBe(404);
    expect(
      (
        await app.db.query<{ action: string }>(
          `SELECT action FROM audit_log WHERE entity_type = 'workflow_route' AND entity_id = $1 ORDER BY id`,
          [type],
        )
      ).rows.map((a) => a.action),
    ).toEqual(['created', 'updated', 'deleted']);
  });

  it('refuses bad routes naming the field', async () => {
    const type = await template();
    for (const body of [
      {},
      { agent_id: '' },
      { agent_id: 'a', timeout_minutes: 0 },
      { agent_id: 'a', priority: 1.5 },
      { agent_id: 'a', colour: 1 },
    ]) {
      const res = await app.call('PUT', `/api/workflow-routing/${type}`, { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await app.call('PUT', '/api/workflow-routing/Bad_Type', { body: { agent_id: 'a' } })).status).toBe(400);
    await fc.assert(
      fc.asyncProperty(fc.anything(), async (body) => {
        expect((await app.call('PUT', `/api/workflow-routing/${type}`, { body })).status).toBeLessThan(500);
      }),
      { numRuns: 30 },
    );
  });
});

describe('agent bridge heartbeat output', () => {
  it('reports workflow_ready with the pending runs when work waits, working while it holds runs, idle otherwise', async () => {
    const type = await template();
    await app.call('PUT', `/api/workflow-routing/${type}`, { body: { agent_id: 'bridge-agent' } });
    expect((await app.call('GET', '/api/agents/bridge-agent/bridge')).body).toEqual({
      state: 'idle',
      agent: 'bridge-agent',
      ready_count: 0,
      active_count: 0,
      pending_workflow_runs: [],
      workflow_run_count: 0,
    });
    const run = await createRun(app, type, { input_payload: { q: 1 } });
    await tick(app);
    const ready = await app.http('GET', '/api/agents/bridge-agent/bridge');
    expect(ready.body).toMatchObject({ state: 'workflow_ready', ready_count: 1, active_count: 0, workflow_run_count: 1 });
    expect(ready.body.pending_workflow_runs).toEqual([
      { id: run.id, workflow_type: type, target_agent_id: 'bridge-agent', input_payload: { q: 1 }, dispatch_attempts: 1 },
    ]);
    await app.call('POST', `/api/workflow-runs/${run.id}/claim`, {
      body: { agent_id: 'bridge-agent', session_id: 'agent:bridge-agent:main:1' },
    });
    expect((await app.call('GET', '/api/agents/bridge-agent/bridge')).body).toMatchObject({
      state: 'working',
      ready_count: 0,
      active_count: 1,
    });
    expect((await app.call('GET', `/api/agents/${'x'.repeat(201)}/bridge`)).status).toBe(400);
  });
});
