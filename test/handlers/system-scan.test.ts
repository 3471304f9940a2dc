import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useTestApp } from '../support/use-app';
import { fakeRuntime, fakeTime, runStatus, tick } from './workflow-support';

const app = useTestApp();
let runtime: ReturnType<typeof fakeRuntime>;
beforeAll(async () => {
  await app.db.query(`INSERT INTO workflow_agent_routing (workflow_type, agent_id) VALUES ('system-scan', 'auditor')`);
});
beforeEach(() => {
  fakeTime(app);
  runtime = fakeRuntime(app, (args) => (args[0] === 'agent' ? { reply: 'noted' } : { ok: true }));
});

describe('system scan', () => {
  it('queues a system-scan run and answers 201 {workflowRunId, status: queued, message}', async () => {
    const res = await app.call('POST', '/api/system-scan/run', { body: { scan_areas: ['costs', 'cron'], max_suggestions: 3 } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ workflowRunId: expect.any(String), status: 'queued', message: expect.any(String) });
    const run = await runStatus(app, res.body.workflowRunId);
    expect(run).toMatchObject({ workflow_type: 'system-scan', input_payload: { scan_areas: ['costs', 'cron'], max_suggestions: 3 } });
    expect((await app.call('POST', '/api/system-scan/run')).status).toBe(201);
    for (const body of [{ scan_areas: [] }, { max_suggestions: 0 }, { max_suggestions: 'x' }, { other: 1 }]) {
      expect((await app.call('POST', '/api/system-scan/run', { body })).status, JSON.stringify(body)).toBe(400);
    }
  });

  it("sends a follow-up into the scan run's agent session through the runtime, 502 when the runtime fails", async () => {
    const { body } = await app.call('POST', '/api/system-scan/run', { body: {} });
    const id = body.workflowRunId;
    expect((await app.call('POST', '/api/system-scan/followup', { body: { run_id: id, message: 'focus on costs' } })).status).toBe(409);
    await tick(app);
    await app.call('POST', `/api/workflow-runs/${id}/claim`, { body: { agent_id: 'auditor', session_id: 'agent:auditor:main:scan' } });
    runtime.calls.length = 0;
    const res = await app.call('POST', '/api/system-scan/followup', { body: { run_id: id, message: 'focus on costs' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ run_id: id, session_key: 'agent:auditor:main:scan', delivered: true, reply: 'noted' });
    expect(runtime.calls).toEqual([['agent', '--session-key', 'agent:auditor:main:scan', '--message', 'focus on costs', '--json']]);
    fakeRuntime(app, () => 'timed_out');
    expect((await app.call('POST', '/api/system-scan/followup', { body: { run_id: id, message: 'again' } })).status).toBe(502);
    expect(
      (await app.call('POST', '/api/system-scan/followup', { body: { run_id: '00000000-0000-4000-8000-000000000000', message: 'x' } }))
        .status,
    ).toBe(404);
    expect((await app.call('POST', '/api/system-scan/followup', { body: { run_id: id } })).status).toBe(400);
  });
});
