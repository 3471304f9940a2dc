import { describe, expect, it } from 'vitest';
import { createRun, runStatus, templateWithRoute, tick, uniqueName, useWorkflowApp } from './workflow-support';

/** A provider quota or rate-limit failure pauses dispatch to the agent and requeues the run. */

const app = useWorkflowApp({ emptyQueue: true });

const SEC = 1000;

/** A run of `type` dispatched and claimed by `agent` (each case has agents of its own: pauses and audit rows outlive a case). */
async function claimedBy(type: string, agent: string) {
  const run = await createRun(app, type);
  await tick(app);
  const session = `agent:${agent}:subagent:${uniqueName('s')}`;
  const res = await app.call('POST', `/api/workflow-runs/${run.id}/claim`, { body: { agent_id: agent, session_id: session } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { id: run.id, session };
}
const fail = (id: string, session: string, extra: Record<string, unknown> = {}) =>
  app.call('POST', `/api/workflow-runs/${id}/fail`, { body: { session_id: session, error: 'provider says no', ...extra } });

async function agentEntry(agent: string) {
  const res = await app.call('GET', '/api/agents/status');
  expect(res.status).toBe(200);
  return (res.body.agents as Array<Record<string, unknown>>).find((a) => a.agent_name === agent);
}

async function pauseTraces(agent: string) {
  const audit = await app.db.query<{ action: string; actor: string }>(
    `SELECT action, actor FROM audit_log WHERE entity_type = 'agent' AND entity_id = $1 AND action LIKE 'dispatch_%' ORDER BY id`,
    [agent],
  );
  const events = await app.db.query<{ payload: { status: string } }>(
    `SELECT payload FROM event_outbox WHERE name = 'agent-status-changed' AND payload->>'agent' = $1 AND payload->>'status' LIKE 'dispatch_%' ORDER BY id`,
    [agent],
  );
  return { audit: audit.rows, events: events.rows.map((e) => e.payload.status) };
}

describe('provider quota pauses', () => {
  it('quota_exhausted requeues the run without spending an attempt and pauses dispatch to its agent until the retry time; other agents keep flowing', async () => {
    const writer = uniqueName('quota');
    const type = await templateWithRoute(app, { agent: writer });
    const otherType = await templateWithRoute(app, { agent: uniqueName('other') });
    const { id, session } = await claimedBy(type, writer);
    await app.call('POST', `/api/workflow-runs/${id}/start`, { body: { session_id: session } });
    const res = await fail(id, session, { error_class: 'quota_exhausted', retry_after_seconds: 120 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      status: 'queued',
      error_class: 'quota_exhausted',
      last_error: 'provider says no',
      dispatch_attempts: 0,
      retry_count: 0,
      claim_session_id: null,
    });
    const steps = await app.db.query<{ status: string }>(`SELECT status FROM workflow_steps WHERE run_id = $1 ORDER BY step_order`, [id]);
    expect(steps.rows.map((s) => s.status)).toEqual(['pending', 'pending', 'pending']);
    expect(await agentEntry(writer)).toMatchObject({
      agent_name: writer,
      dispatch_paused_until: '2026-11-01T12:02:00.000Z',
      pause_reason: 'quota_exhausted: provider says no',
      last_seen_at: null,
      status: 'offline',
    });
    expect(await pauseTraces(writer)).toEqual({ audit: [{ action: 'dispatch_paused', actor: 'system' }], events: ['dispatch_paused'] });
    const other = await createRun(app, otherType);
    const held = await tick(app);
    expect(held).toMatchObject({ dispatched: 1, heldByPause: 1 });
    expect((await runStatus(app, id)).status).toBe('queued');
    expect((await runStatus(app, other.id)).status).toBe('dispatched');
    const stats = await app.call('GET', '/api/workflow-runs/dispatcher/stats');
    expect(stats.body.paused_agents).toEqual([
      { agent_id: writer, dispatch_paused_until: '2026-11-01T12:02:00.000Z', pause_reason: 'quota_exhausted: provider says no' },
    ]);
    app.clock().advance(120 * SEC);
    expect(await tick(app)).toMatchObject({ dispatched: 1, heldByPause: 0 });
    expect(await runStatus(app, id)).toMatchObject({ status: 'dispatched', dispatch_attempts: 1 });
    expect(await agentEntry(writer)).toBeUndefined();
  });

  it('rate_limited without retry_after_seconds pauses for 15 minutes; five failures in one window pause once', async () => {
    const writer = uniqueName('rate');
    const type = await templateWithRoute(app, { agent: writer });
    const claimed = [];
    for (let i = 0; i < 5; i++) claimed.push(await claimedBy(type, writer));
    await app.call('POST', '/api/agents/heartbeat', { body: { agent_name: writer } });
    for (const [i, { id, session }] of claimed.entries()) {
      app.clock().advance(10 * SEC);
      const res = await fail(id, session, { error_class: 'rate_limited', ...(i > 0 ? { retry_after_seconds: 3600 } : {}) });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('queued');
    }
    const entry = await agentEntry(writer);
    expect(entry).toMatchObject({
      status: 'online',
      dispatch_paused_until: '2026-11-01T12:15:10.000Z',
      pause_reason: 'rate_limited: provider says no',
    });
    expect(await pauseTraces(writer)).toEqual({ audit: [{ action: 'dispatch_paused', actor: 'system' }], events: ['dispatch_paused'] });
    expect(await tick(app)).toMatchObject({ dispatched: 0, heldByPause: 5 });
    // a failure after the window ends pauses again, once
    app.clock().set('2026-11-01T12:15:10.000Z');
    expect(await tick(app)).toMatchObject({ dispatched: 5 });
    const again = claimed[0]!;
    await app.call('POST', `/api/workflow-runs/${again.id}/claim`, { body: { agent_id: writer, session_id: again.session } });
    expect((await fail(again.id, again.session, { error_class: 'quota_exhausted' })).status).toBe(200);
    expect((await pauseTraces(writer)).audit).toHaveLength(2);
  });

  it('resume-dispatch lifts a pause early (audited by the operator); resuming an agent that is not paused changes nothing', async () => {
    const writer = uniqueName('resume');
    const type = await templateWithRoute(app, { agent: writer });
    const { id, session } = await claimedBy(type, writer);
    await fail(id, session, { error_class: 'quota_exhausted', retry_after_seconds: 86_400 });
    const resumed = await app.call('POST', `/api/agents/${writer}/resume-dispatch`, { body: {} });
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ agent_id: writer, resumed: true, dispatch_paused_until: null, pause_reason: null });
    expect(await tick(app)).toMatchObject({ dispatched: 1, heldByPause: 0 });
    const twice = await app.http('POST', `/api/agents/${writer}/resume-dispatch`);
    expect(twice.status).toBe(200);
    expect(twice.body.resumed).toBe(false);
    expect(await pauseTraces(writer)).toEqual({
      audit: [
        { action: 'dispatch_paused', actor: 'system' },
        { action: 'dispatch_resumed', actor: 'dashboard-operator' },
      ],
      events: ['dispatch_paused', 'dispatch_resumed'],
    });
    expect((await app.call('POST', `/api/agents/${writer}/resume-dispatch`, { body: { actor: '' } })).status).toBe(400);
  });

  it('agent_error (the default) and provider_error fail the run as before, recording the class; bad classes and retry times are 400', async () => {
    const writer = uniqueName('plain');
    const type = await templateWithRoute(app, { agent: writer });
    const a = await claimedBy(type, writer);
    const plain = await fail(a.id, a.session);
    expect(plain.body).toMatchObject({ status: 'failed', error_class: 'agent_error' });
    const b = await claimedBy(type, writer);
    expect((await fail(b.id, b.session, { error_class: 'provider_error', retry_after_seconds: 60 })).body).toMatchObject({
      status: 'failed',
      error_class: 'provider_error',
    });
    expect(await agentEntry(writer)).toBeUndefined();
    const c = await claimedBy(type, writer);
    for (const [extra, field] of [
      [{ error_class: 'quota' }, 'error_class'],
      [{ error_class: 'rate_limited', retry_after_seconds: 0 }, 'retry_after_seconds'],
      [{ error_class: 'rate_limited', retry_after_seconds: 2.5 }, 'retry_after_seconds'],
      [{ error_class: 'rate_limited', retry_after_seconds: 700_000 }, 'retry_after_seconds'],
    ] as const) {
      const res = await fail(c.id, c.session, extra);
      expect(res.status).toBe(400);
      expect(res.body.error).toContain(field);
    }
    expect((await runStatus(app, c.id)).status).toBe('claimed');
    // a quota failure from a session that does not hold the run is refused like any fail
    expect((await fail(c.id, `agent:${writer}:main:intruder`, { error_class: 'quota_exhausted' })).status).toBe(409);
    expect(await agentEntry(writer)).toBeUndefined();
  });
});
