import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChild, type Child } from '../support/child-process';
import { startMcpProcess, toolPayload } from '../support/mcp-process';
import { createTestDatabase } from '../support/test-app';

/**
 * The done criterion of the tool server: the official SDK client over stdio against a real task
 * server (`node dist/server.js` on its own database), every tool, mutations off and on, the
 * server down, a wrong token; and every byte the MCP process writes searched for the token.
 */
const TOKEN = 'real-server-token-41c9e0';
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let server: Child;
let baseUrl: string;
let projectId: string;

async function api(method: string, target: string, body?: unknown) {
  const res = await fetch(`${baseUrl}${target}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  database = await createTestDatabase();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: database.url,
    DATA_DIR: path.join('/tmp', `mcp-real-${process.pid}`),
    PORT: '0',
    DASHBOARD_AUTH_TOKEN: TOKEN,
    DISPATCHER_INTERVAL_MS: '0',
    CRON_MANAGER_PORT: '0',
    LOG_LEVEL: 'WARN',
    RUNTIME_CLI: path.resolve('test/fixtures/runtime/fake-runtime.mjs'),
    RUNTIME_STATE_DIR: path.resolve('test/fixtures/runtime/state'),
  };
  server = startChild(process.execPath, ['dist/server.js'], { env });
  baseUrl = (await server.waitFor(/task server ready at (http:\/\/\S+)/, 60_000))[1]!;
  projectId = (await api('POST', '/api/projects', { name: 'Agents at work' })).body.id as string;
  await api('POST', '/api/tasks', { project_id: projectId, title: 'Ready one', status: 'ready' });
  await api('POST', '/api/tasks', { project_id: projectId, title: 'Backlog one' });
});

afterAll(async () => {
  server?.proc.kill('SIGTERM');
  await server?.exited;
  await database?.drop();
});

async function sdkClient(env: Record<string, string>) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.resolve('dist/mcp.js')],
    env: { PATH: process.env.PATH ?? '', TASK_SERVER_URL: baseUrl, ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const result = (await client.callTool({ name, arguments: args })) as {
      content: Array<{ text: string }>;
      isError?: boolean;
      structuredContent?: unknown;
    };
    return {
      payload: JSON.parse(result.content[0]!.text) as Record<string, unknown>,
      structured: result.structuredContent,
      isError: result.isError === true,
      text: result.content[0]!.text,
    };
  };
  return { client, call, stderr: () => stderr, close: () => client.close() };
}

describe('MCP tools through the SDK client against a running task server', () => {
  it('serves every read tool with mutations off, and refuses the mutating ones', async () => {
    const mcp = await sdkClient({ DASHBOARD_AUTH_TOKEN: TOKEN });
    try {
      const { tools } = await mcp.client.listTools();
      expect(tools).toHaveLength(10);

      const listed = await mcp.call('list_tasks', { project_id: projectId });
      expect(listed.isError).toBe(false);
      expect(listed.payload).toMatchObject({ total: 2, truncated: false, include_archived: false });
      const readyOnly = await mcp.call('list_tasks', { status: 'ready', limit: 1 });
      expect((readyOnly.payload.tasks as Array<{ title: string }>).map((t) => t.title)).toEqual(['Ready one']);

      const taskId = (listed.payload.tasks as Array<{ id: string }>)[0]!.id;
      const task = await mcp.call('get_task', { task_id: taskId });
      expect(task.payload).toMatchObject({ id: taskId, project_id: projectId });
      expect((await mcp.call('get_task', { task_id: '123e4567-e89b-42d3-a456-426614174000' })).payload).toEqual({ error: 'not_found' });

      const summary = await mcp.call('get_costs_summary', { days: 3 });
      // the spend-control fields pass through: unpriced and subscription usage beside the totals
      expect(summary.payload).toMatchObject({
        available: true,
        window_days: 3,
        subscription_cost: 0,
        unpriced_runs: 0,
        unpriced_tokens: { input: 0, output: 0 },
      });
      expect((await mcp.call('get_cost_rollup', { group_by: 'workflow_type' })).payload).toMatchObject({
        available: true,
        group_by: 'workflow_type',
        subscription_cost: 0,
      });
      expect((await mcp.call('list_budgets')).payload).toMatchObject({ available: true, budgets: [] });
      expect((await mcp.call('get_budget_ledger', { budget_id: '123e4567-e89b-42d3-a456-426614174000' })).payload).toMatchObject({
        error: 'not_found',
      });
      expect((await mcp.call('list_snapshots')).payload).toMatchObject({ available: true });
      const fleet = await mcp.call('get_fleet_status');
      expect(Object.keys(fleet.payload).sort()).toEqual(['agents', 'dispatch_safety', 'health', 'running_runs', 'stuck_runs']);
      expect(fleet.payload.dispatch_safety).toMatchObject({ paused_agents: [], capped: { workflowType: 0, agent: 0, fleet: 0 } });
      const mission = await mcp.call('get_mission_control_summary');
      expect(Object.keys(mission.payload).sort()).toEqual(['agents', 'blockers', 'budgets', 'costs', 'cron', 'health', 'queue', 'runs']);
      expect(mission.payload.queue).toMatchObject({ total: 1 });
      for (const [name, value] of Object.entries(mission.payload)) {
        expect((value as { status?: string }).status, `${name} section`).not.toBe('unavailable');
      }
      const audit = await mcp.call('search_audit', { q: 'agents at work', limit: 1 });
      expect(audit.isError).toBe(false);
      expect(audit.payload).toMatchObject({ count: 1, next_offset: 1 });
      expect((audit.payload.entries as Array<{ action: string }>)[0]).toMatchObject({ entity_type: 'project' });
      // the SDK client checked each structured result against the tool's output schema; it equals the text payload
      expect(audit.structured).toEqual(audit.payload);

      const refused = await mcp.call('create_task', { title: 'x', project_id: projectId });
      expect(refused).toMatchObject({ isError: true, payload: { error: 'mutations_disabled' } });
      expect(mcp.stderr()).not.toContain(TOKEN);
    } finally {
      await mcp.close();
    }
  });

  it('runs the three mutating tools as governed actions with receipts when enabled', async () => {
    const mcp = await sdkClient({ DASHBOARD_AUTH_TOKEN: TOKEN, RUNTIME_MCP_MUTATIONS: '1' });
    try {
      expect((await mcp.client.listTools()).tools).toHaveLength(13);
      const created = await mcp.call('create_task', {
        title: 'Filed by an agent',
        project_id: projectId,
        owner_agent: 'scribe',
        due_date: '2026-12-01',
      });
      expect(created.isError).toBe(false);
      expect(created.payload).toMatchObject({ receipt: { kind: 'task.create', outcome: 'executed' } });
      const tasks = await api('GET', `/api/tasks/all?project_id=${projectId}`);
      const filed = (tasks.body as unknown as Array<{ id: string; title: string; owner: string }>).find(
        (t) => t.title === 'Filed by an agent',
      );
      expect(filed?.owner).toBe('scribe');

      const updated = await mcp.call('update_task', { task_id: filed!.id, patch: { priority: 'high' } });
      expect(updated.payload).toMatchObject({ receipt: { kind: 'task.update', outcome: 'executed' } });
      expect((await api('GET', `/api/tasks/${filed!.id}`)).body.priority).toBe('high');
      const missing = await mcp.call('update_task', { task_id: '123e4567-e89b-42d3-a456-426614174000', patch: { priority: 'low' } });
      expect(missing.payload).toMatchObject({ error: 'not_found', receipt: { outcome: 'failed' } });

      const snapshot = await mcp.call('create_snapshot', { name: 'from-an-agent' });
      expect(snapshot.payload).toMatchObject({ receipt: { kind: 'snapshot.create', outcome: 'executed' } });
      const listing = (await mcp.call('list_snapshots')).payload as { snapshots: Array<{ name: string }> };
      expect(listing.snapshots.map((s) => s.name)).toContain('from-an-agent');

      const receipts = await api('GET', '/api/actions/recent');
      expect((receipts.body.receipts as unknown[]).length).toBeGreaterThanOrEqual(4);
    } finally {
      await mcp.close();
    }
  });

  it('runs with an agent token: reads as the operator would, and its mutating tools act as that agent', async () => {
    const minted = await api('POST', '/api/agent-tokens', { agent_id: 'mcp-agent', label: 'tool server' });
    expect(minted.status).toBe(201);
    const agentToken = minted.body.token as string;
    const mcp = await sdkClient({ DASHBOARD_AUTH_TOKEN: agentToken, RUNTIME_MCP_MUTATIONS: '1' });
    try {
      const listed = await mcp.call('list_tasks', { project_id: projectId });
      expect(listed.isError).toBe(false);
      expect((listed.payload.tasks as Array<{ title: string }>).map((t) => t.title)).toContain('Ready one');
      // the actor is the token's agent, whose profile (none: role external) governance reads
      const create = await mcp.call('create_task', { title: 'as an agent', project_id: projectId });
      expect(create.isError).toBe(true);
      expect(create.text).toMatch(/actor mcp-agent \(role external/);
      expect(mcp.stderr()).not.toContain(agentToken);
    } finally {
      await mcp.close();
    }
  });

  it('reports auth_failed with a wrong token and task_server_unreachable when the server is down', async () => {
    const wrong = await sdkClient({ DASHBOARD_AUTH_TOKEN: 'not-the-token' });
    try {
      const res = await wrong.call('list_budgets');
      expect(res).toMatchObject({ isError: true, payload: { error: 'auth_failed' } });
      expect(res.text).toMatch(/DASHBOARD_AUTH_TOKEN/);
      expect(res.text).not.toContain('not-the-token');
    } finally {
      await wrong.close();
    }
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [path.resolve('dist/mcp.js')],
      env: { PATH: process.env.PATH ?? '', TASK_SERVER_URL: 'http://127.0.0.1:9', DASHBOARD_AUTH_TOKEN: TOKEN },
    });
    const down = new Client({ name: 'down', version: '1' });
    await down.connect(transport);
    try {
      const result = (await down.callTool({ name: 'list_tasks', arguments: {} })) as {
        content: Array<{ text: string }>;
        isError?: boolean;
      };
      expect(result.isError).toBe(true);
      expect(JSON.parse(result.content[0]!.text)).toMatchObject({ error: 'task_server_unreachable' });
    } finally {
      await down.close();
    }
  });

  it('never writes the token in any byte of stdout or stderr, across every tool', async () => {
    const mcp = startMcpProcess({ TASK_SERVER_URL: baseUrl, DASHBOARD_AUTH_TOKEN: TOKEN, RUNTIME_MCP_MUTATIONS: '1' });
    const calls: Array<[string, Record<string, unknown>]> = [
      ['list_tasks', {}],
      ['get_task', { task_id: '123e4567-e89b-42d3-a456-426614174000' }],
      ['get_costs_summary', {}],
      ['get_cost_rollup', {}],
      ['list_budgets', {}],
      ['get_budget_ledger', { budget_id: '123e4567-e89b-42d3-a456-426614174000' }],
      ['list_snapshots', {}],
      ['get_fleet_status', {}],
      ['get_mission_control_summary', {}],
      ['search_audit', { q: 'x' }],
      ['create_task', { title: 'token scan', project_id: projectId }],
      ['update_task', { task_id: projectId, patch: { title: 'x' } }],
      ['create_snapshot', {}],
      ['list_tasks', { limit: 999 }],
    ];
    let id = 1;
    for (const [name, args] of calls) toolPayload(await mcp.request(id++, 'tools/call', { name, arguments: args }));
    await mcp.stop();
    const { stdout, stderr } = mcp.output();
    expect(stdout.length).toBeGreaterThan(1000);
    expect(stdout).not.toContain(TOKEN);
    expect(stderr).not.toContain(TOKEN);
  });
});
