import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useTestApp } from '../support/use-app';
import { claimedRun, fakeRuntime, fakeTime, runStatus, templateWithRoute, tick } from './workflow-support';

const app = useTestApp();
let clock: ReturnType<typeof fakeTime>;
let type: string;
beforeAll(async () => {
  type = await templateWithRoute(app);
});
beforeEach(() => {
  clock = fakeTime(app);
  fakeRuntime(app);
});

describe('gateway sessions', () => {
  it('lists active gateway sessions of held runs, with the agent parsed from the key', async () => {
    const run = await claimedRun(app, type, 'agent:writer:subagent:abc');
    const res = await app.call('GET', '/api/sessions/active');
    expect(res.status).toBe(200);
    const session = res.body.sessions.find((s: { run_id: string }) => s.run_id === run.id);
    expect(session).toMatchObject({
      session_key: 'agent:writer:subagent:abc',
      agent_id: 'writer',
      run_status: 'claimed',
      workflow_type: type,
    });
    expect(res.body).toMatchObject({ total: res.body.sessions.length, truncated: false });
    await app.call('POST', `/api/workflow-runs/${run.id}/complete`, { body: { session_id: run.session, output_summary: {} } });
    expect((await app.call('GET', '/api/sessions/active')).body.sessions.some((s: { run_id: string }) => s.run_id === run.id)).toBe(false);
  });

  it('a session heartbeat keeps the run marked active and its claim alive past the 10-minute release', async () => {
    const run = await claimedRun(app, type, 'agent:writer:subagent:hb');
    clock.advance(8 * 60_000);
    const hb = await app.http('POST', `/api/sessions/${encodeURIComponent(run.session)}/heartbeat`, { body: {} });
    expect(hb.status).toBe(200);
    expect(hb.body).toMatchObject({ session_id: run.session, active: true, run_ids: [run.id] });
    clock.advance(8 * 60_000);
    await tick(app);
    expect(await runStatus(app, run.id)).toMatchObject({ status: 'claimed', gateway_session_active: true });
    expect((await app.call('POST', '/api/sessions/agent:nobody:main:1/heartbeat', { body: {} })).status).toBe(404);
    expect((await app.call('POST', '/api/sessions/-bad/heartbeat', { body: {} })).status).toBe(400);
  });
});
