import { beforeEach, describe, expect, it } from 'vitest';
import { useTestApp } from '../support/use-app';
import { createRun, fakeRuntime, fakeTime, templateWithRoute, tick, uniqueName } from './workflow-support';

/** GET /api/agents/roster (docs/console-api.md): the Agents screen's one read. */
const app = useTestApp();
let clock: ReturnType<typeof fakeTime>;

beforeEach(() => {
  clock = fakeTime(app, '2026-11-20T12:00:00.000Z');
  fakeRuntime(app);
});

async function roster(query = '') {
  const res = await app.call('GET', `/api/agents/roster${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.agents as Array<Record<string, unknown> & { agent_id: string }>;
}
const entry = async (agent: string, query = '') => (await roster(query)).find((a) => a.agent_id === agent);

async function heartbeat(agent: string, status = 'online') {
  expect((await app.call('POST', '/api/agents/heartbeat', { body: { agent_name: agent, status } })).status).toBe(200);
}

describe('GET /api/agents/roster', () => {
  it('answers each agent with its liveness, live runs against its cap, dispatch pause and billing, as the routes that set them say', async () => {
    const agent = uniqueName('roster');
    await heartbeat(agent);
    expect((await app.call('PUT', `/api/agents/${agent}/limits`, { body: { max_concurrent_runs: 3 } })).status).toBe(200);
    expect((await app.call('PUT', `/api/agents/${agent}/billing`, { body: { billing: 'subscription' } })).status).toBe(200);
    const type = await templateWithRoute(app, { agent });
    await createRun(app, type);
    await createRun(app, type);
    await tick(app);
    expect(await entry(agent)).toEqual({
      agent_id: agent,
      status: 'online',
      reported_status: 'online',
      last_seen_at: '2026-11-20T12:00:00.000Z',
      live_runs: 2,
      max_concurrent_runs: 3,
      dispatch_paused_until: null,
      pause_reason: null,
      billing: 'subscription',
    });
    // the same figures the per-agent route answers
    const limits = (await app.call('GET', `/api/agents/${agent}/limits`)).body;
    expect(limits).toMatchObject({ live_runs: 2, max_concurrent_runs: 3 });
  });

  it('lists an agent known only by its cap, its profile or a live run, never seen: offline, last_seen_at null', async () => {
    const capped = uniqueName('capped');
    const billed = uniqueName('billed');
    const running = uniqueName('running');
    await app.call('PUT', `/api/agents/${capped}/limits`, { body: { max_concurrent_runs: 1 } });
    await app.call('PUT', `/api/agents/${billed}/billing`, { body: { billing: 'metered' } });
    await createRun(app, await templateWithRoute(app, { agent: running }));
    await tick(app);
    const agents = await roster();
    for (const id of [capped, billed, running]) {
      expect(
        agents.find((a) => a.agent_id === id),
        id,
      ).toMatchObject({ status: 'offline', reported_status: null, last_seen_at: null });
    }
    expect(agents.find((a) => a.agent_id === running)?.live_runs).toBe(1);
    expect(agents.find((a) => a.agent_id === billed)).toMatchObject({ billing: 'metered', max_concurrent_runs: null, live_runs: 0 });
    // ordered by agent id, each once
    const ids = agents.map((a) => a.agent_id);
    expect(ids).toEqual([...new Set(ids)].sort());
  });

  it('shows a dispatch pause until it ends or the operator resumes dispatch', async () => {
    const agent = uniqueName('paused');
    await heartbeat(agent);
    await app.db.query(
      `INSERT INTO agent_dispatch_controls (agent_id, dispatch_paused_until, pause_reason, created_at, updated_at) VALUES ($1, $2, 'provider quota exhausted', now(), now())`,
      [agent, new Date('2026-11-20T12:15:00.000Z')],
    );
    expect(await entry(agent)).toMatchObject({
      dispatch_paused_until: '2026-11-20T12:15:00.000Z',
      pause_reason: 'provider quota exhausted',
    });
    clock.set('2026-11-20T12:16:00.000Z');
    expect(await entry(agent)).toMatchObject({ dispatch_paused_until: null, pause_reason: null });
    clock.set('2026-11-20T12:00:00.000Z');
    expect((await app.call('POST', `/api/agents/${agent}/resume-dispatch`, { body: {} })).body.resumed).toBe(true);
    expect(await entry(agent)).toMatchObject({ dispatch_paused_until: null, pause_reason: null });
  });

  it('says offline after offline_after_seconds of silence whatever the agent reported, and keeps what it reported', async () => {
    const agent = uniqueName('silent');
    await heartbeat(agent, 'error');
    expect(await entry(agent)).toMatchObject({ status: 'error', reported_status: 'error' });
    clock.advance(301_000);
    expect(await entry(agent)).toMatchObject({ status: 'offline', reported_status: 'error' });
    expect(await entry(agent, '?offline_after_seconds=600')).toMatchObject({ status: 'error' });
  });

  it('refuses a bad offline_after_seconds with 400 naming it, and writes nothing', async () => {
    for (const bad of ['0', 'abc', String(8 * 24 * 3600)]) {
      const res = await app.call('GET', `/api/agents/roster?offline_after_seconds=${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.body.error).toMatch(/offline_after_seconds/);
    }
  });

  it('a billing change and a token change are published for the console to refresh on', async () => {
    const agent = uniqueName('events');
    await app.call('PUT', `/api/agents/${agent}/billing`, { body: { billing: 'metered' } });
    const minted = await app.call('POST', '/api/agent-tokens', { body: { agent_id: agent, label: 'roster events' } });
    expect(minted.status).toBe(201);
    await app.call('DELETE', `/api/agent-tokens/${minted.body.id}`);
    const { rows } = await app.db.query<{ name: string; payload: Record<string, unknown> }>(
      `SELECT name, payload FROM event_outbox WHERE name IN ('agent-billing-changed', 'agent-token-changed') AND payload->>'agent' = $1 ORDER BY id`,
      [agent],
    );
    expect(rows).toEqual([
      { name: 'agent-billing-changed', payload: { agent, billing: 'metered' } },
      { name: 'agent-token-changed', payload: { action: 'created', tokenId: minted.body.id, agent } },
      { name: 'agent-token-changed', payload: { action: 'revoked', tokenId: minted.body.id, agent } },
    ]);
    expect(JSON.stringify(rows)).not.toContain(minted.body.token);
  });
});
