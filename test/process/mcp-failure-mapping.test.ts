import { afterEach, describe, expect, it } from 'vitest';
import { recordingTaskServer, startMcpProcess, toolPayload, type RecordedRequest } from '../support/mcp-process';

const TOKEN = 'mapping-token-77aa';
let cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

async function setup(answer: (req: RecordedRequest) => { status: number; body: unknown }, env: Record<string, string> = {}) {
  const upstream = await recordingTaskServer(answer);
  const mcp = startMcpProcess({ TASK_SERVER_URL: upstream.url, DASHBOARD_AUTH_TOKEN: TOKEN, ...env });
  cleanup.push(
    () => upstream.close(),
    () => mcp.stop(),
  );
  return { upstream, mcp };
}

describe('MCP failure mapping', () => {
  it('maps upstream 401 to auth_failed with the DASHBOARD_AUTH_TOKEN hint, without retrying', async () => {
    const { upstream, mcp } = await setup(() => ({ status: 401, body: { error: 'missing or invalid bearer token' } }));
    const { payload, isError } = toolPayload(await mcp.request(1, 'tools/call', { name: 'list_budgets', arguments: {} }));
    expect(isError).toBe(true);
    expect(payload).toMatchObject({ error: 'auth_failed' });
    expect((payload as { hint: string }).hint).toMatch(/DASHBOARD_AUTH_TOKEN/);
    expect(JSON.stringify(payload)).not.toContain(TOKEN);
    expect(upstream.toolRequests()).toHaveLength(1);
  });

  it('maps upstream 404 to a normal {error: not_found} result', async () => {
    const { mcp } = await setup(() => ({ status: 404, body: { error: 'task x not found' } }));
    const { payload, isError } = toolPayload(
      await mcp.request(1, 'tools/call', { name: 'get_task', arguments: { task_id: '123e4567-e89b-42d3-a456-426614174000' } }),
    );
    expect(isError).toBe(false);
    expect(payload).toEqual({ error: 'not_found' });
  });

  it('passes degraded bodies through verbatim', async () => {
    const degraded = { available: false, reason: 'no_database', window_days: 7, timestamp: '2026-11-22T00:00:00.000Z' };
    const { upstream, mcp } = await setup(() => ({ status: 200, body: degraded }));
    const { payload, isError } = toolPayload(await mcp.request(1, 'tools/call', { name: 'get_costs_summary', arguments: { days: 30 } }));
    expect(isError).toBe(false);
    expect(payload).toEqual(degraded);
    expect(upstream.toolRequests()[0]!.url).toBe('/api/costs/summary?days=30');
  });

  it('reports an unreachable task server as a task_server_unreachable error result', async () => {
    const mcp = startMcpProcess({ TASK_SERVER_URL: 'http://127.0.0.1:9', DASHBOARD_AUTH_TOKEN: TOKEN });
    cleanup.push(() => mcp.stop());
    for (const name of ['list_snapshots', 'get_fleet_status']) {
      const { payload, isError } = toolPayload(await mcp.request(name.length, 'tools/call', { name, arguments: {} }));
      expect(isError).toBe(true);
      expect(payload).toMatchObject({ error: 'task_server_unreachable' });
    }
  });

  it('marks a failing section of a composed tool unavailable and keeps the others', async () => {
    const { mcp } = await setup((req) =>
      req.url.startsWith('/api/workflow-runs/stuck') ? { status: 500, body: { error: 'boom' } } : { status: 200, body: { from: req.url } },
    );
    const { payload, isError } = toolPayload(
      await mcp.request(1, 'tools/call', { name: 'get_fleet_status', arguments: { running_limit: 5 } }),
    );
    expect(isError).toBe(false);
    expect(payload).toEqual({
      health: { from: '/api/health-status' },
      agents: { from: '/api/agents/status' },
      dispatch_safety: { paused_agents: [], capped: null, held_by_pause: null, leases_expired: null },
      running_runs: { from: '/api/workflow-runs?status=running&limit=5' },
      stuck_runs: { section: 'stuck_runs', status: 'unavailable', reason: 'task server answered 500' },
    });
    const noStuck = toolPayload(await mcp.request(2, 'tools/call', { name: 'get_fleet_status', arguments: { include_stuck: false } }));
    expect(noStuck.payload).not.toHaveProperty('stuck_runs');
  });

  it('shows paused agents and capped counts from the dispatcher stats in get_fleet_status', async () => {
    const stats = {
      queue: { total: 9 },
      capped: { workflowType: 2, agent: 1, fleet: 0 },
      paused_agents: [
        { agent_id: 'writer', dispatch_paused_until: '2026-11-01T12:15:00.000Z', pause_reason: 'quota_exhausted: out of credits' },
      ],
      last_tick_summary: { heldByPause: 3, leasesExpired: 1, dispatched: 4 },
    };
    const { mcp } = await setup((req) =>
      req.url === '/api/workflow-runs/dispatcher/stats' ? { status: 200, body: stats } : { status: 200, body: {} },
    );
    const { payload } = toolPayload(await mcp.request(1, 'tools/call', { name: 'get_fleet_status', arguments: { include_stuck: false } }));
    expect((payload as { dispatch_safety: unknown }).dispatch_safety).toEqual({
      paused_agents: stats.paused_agents,
      capped: stats.capped,
      held_by_pause: 3,
      leases_expired: 1,
    });
  });

  it('composes only the requested mission-control sections', async () => {
    const { upstream, mcp } = await setup((req) => ({ status: req.url.startsWith('/api/cron') ? 502 : 200, body: { from: req.url } }));
    const { payload } = toolPayload(
      await mcp.request(1, 'tools/call', { name: 'get_mission_control_summary', arguments: { sections: ['budgets', 'cron'] } }),
    );
    expect(payload).toEqual({
      cron: { section: 'cron', status: 'unavailable', reason: 'task server answered 502' },
      budgets: { from: '/api/budgets' },
    });
    expect(
      upstream
        .toolRequests()
        .map((r) => r.url)
        .sort(),
    ).toEqual(['/api/budgets', '/api/cron/jobs']);
  });

  it('sends mutating tools through POST /api/actions/execute with a fresh actionId each time', async () => {
    const { upstream, mcp } = await setup(
      (req) => ({
        status: 200,
        body: {
          receipt: { action_id: JSON.parse(req.body || '{}').actionId, kind: 'task.create', outcome: 'executed', detail: { result: {} } },
        },
      }),
      { RUNTIME_MCP_MUTATIONS: '1' },
    );
    const args = { title: 'Write docs', project_id: '123e4567-e89b-42d3-a456-426614174000', owner_agent: 'writer' };
    const first = toolPayload(await mcp.request(1, 'tools/call', { name: 'create_task', arguments: args }));
    toolPayload(await mcp.request(2, 'tools/call', { name: 'create_task', arguments: args }));
    expect(first.payload).toMatchObject({ receipt: { kind: 'task.create', outcome: 'executed' } });
    const posts = upstream.toolRequests().map((r) => JSON.parse(r.body));
    expect(posts).toHaveLength(2);
    expect(posts[0]).toMatchObject({
      kind: 'task.create',
      targetId: args.project_id,
      params: { title: 'Write docs', owner_agent: 'writer' },
    });
    expect(posts[0].actionId).not.toBe(posts[1].actionId);
  });

  it('passes a governance denial through as an error result and a 503 refusal as unavailable', async () => {
    let status = 403;
    const { mcp } = await setup(
      () => ({
        status,
        body:
          status === 403
            ? { error: 'rejected_governance', reason: 'no capability', receipt: { outcome: 'rejected_governance' } }
            : { available: false, reason: 'no_database' },
      }),
      {
        RUNTIME_MCP_MUTATIONS: '1',
      },
    );
    const denied = toolPayload(await mcp.request(1, 'tools/call', { name: 'create_snapshot', arguments: {} }));
    expect(denied).toEqual({
      isError: true,
      payload: { error: 'rejected_governance', reason: 'no capability', receipt: { outcome: 'rejected_governance' } },
    });
    status = 503;
    const refused = toolPayload(await mcp.request(2, 'tools/call', { name: 'create_snapshot', arguments: {} }));
    expect(refused).toEqual({ isError: true, payload: { error: 'unavailable', status: 503, available: false, reason: 'no_database' } });
  });

  it('keeps tool results unchanged when the telemetry endpoint fails', async () => {
    const { mcp } = await setup((req) =>
      req.url === '/api/mcp/telemetry' ? { status: 500, body: { error: 'down' } } : { status: 200, body: { snapshots: [] } },
    );
    const { payload, isError } = toolPayload(await mcp.request(1, 'tools/call', { name: 'list_snapshots', arguments: {} }));
    expect({ payload, isError }).toEqual({ payload: { snapshots: [] }, isError: false });
    const again = toolPayload(await mcp.request(2, 'tools/call', { name: 'list_snapshots', arguments: {} }));
    expect(again.isError).toBe(false);
  });
});
