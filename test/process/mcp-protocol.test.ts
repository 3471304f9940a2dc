import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { taskColumns } from '../../core/tasks/task';
import { summaryTaskFields } from '../../mcp/tools';
import { recordingTaskServer, startMcpProcess, toolPayload } from '../support/mcp-process';

const TOKEN = 'mcp-secret-token-5be1';
let upstream: Awaited<ReturnType<typeof recordingTaskServer>>;
let mcp: ReturnType<typeof startMcpProcess> | undefined;

const defaultTasks = [{ id: 'a', status: 'ready' }];
let upstreamTasks: Array<Record<string, unknown>> = defaultTasks;

beforeAll(async () => {
  upstream = await recordingTaskServer((req) =>
    req.url.startsWith('/api/tasks/all') ? { status: 200, body: upstreamTasks } : { status: 200, body: { ok: true } },
  );
});
afterAll(async () => upstream.close());
afterEach(async () => {
  if (mcp) await mcp.stop();
  mcp = undefined;
  upstream.requests.length = 0;
});

const start = (extra: Record<string, string> = {}) =>
  (mcp = startMcpProcess({ TASK_SERVER_URL: upstream.url, DASHBOARD_AUTH_TOKEN: TOKEN, LOG_LEVEL: 'SILENT', ...extra }));

describe('MCP tool server protocol over raw stdio lines', () => {
  it('answers a malformed line and a non-JSON-RPC line with error frames and keeps serving', async () => {
    const m = start();
    m.sendLine('{"jsonrpc": "2.0", "id": 1, "method": ');
    m.sendLine('[1, 2, 3]');
    m.sendLine('{"hello": "world", "id": 7}');
    await m.waitForFrames(() => m.frames.length >= 5);
    expect(m.frames[0]).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    expect(m.frames.slice(1, 4)).toEqual(
      Array(3).fill({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/batches are not supported/) } }),
    );
    expect(m.frames[4]).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32600 } });
    expect(await m.request(2, 'ping')).toMatchObject({ id: 2, result: {} });
  });

  it("answers a JSON-RPC batch with one -32600 frame per element, carrying each element's id, and executes none of them", async () => {
    const m = start();
    m.sendLine(
      JSON.stringify([
        { jsonrpc: '2.0', id: 'a', method: 'ping' },
        { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'list_tasks' } },
        'x',
      ]),
    );
    m.sendLine('[]');
    await m.waitForFrames(() => m.frames.length >= 4);
    expect(m.frames.map((f) => [f.id, (f.error as { code: number }).code])).toEqual([
      ['a', -32600],
      [9, -32600],
      [null, -32600],
      [null, -32600],
    ]);
    expect(upstream.requests).toEqual([]);
  });

  it('answers tools/call params without a name, or with arguments that are not an object, with -32602 and one line', async () => {
    const m = start();
    const cases = [
      undefined,
      [],
      { arguments: {} },
      { name: 7 },
      { name: '' },
      { name: 'list_tasks', arguments: 5 },
      { name: 'list_tasks', arguments: [] },
    ];
    let id = 1;
    for (const params of cases) {
      const frame = await m.request(id++, 'tools/call', params);
      const error = frame.error as { code: number; message: string };
      expect(error.code, JSON.stringify(params)).toBe(-32602);
      expect(error.message).toMatch(/^Invalid params: (tools\/call needs params\.name|arguments of list_tasks must be an object)/);
      expect(error.message).not.toContain('\n');
    }
    expect(upstream.requests).toEqual([]);
  });

  it('refuses a line above 4 MB with -32600 without executing it, then serves the next line', async () => {
    const m = start();
    const huge = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'list_tasks', arguments: { pad: 'x'.repeat(4 * 1024 * 1024) } },
    });
    m.sendLine(huge);
    const ping = await m.request(2, 'ping');
    expect(ping).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    expect(m.frames[0]).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: expect.stringMatching(/line longer than 4194304 bytes/) },
    });
    expect(m.frames.some((f) => f.id === 1)).toBe(false);
    expect(upstream.requests).toEqual([]);
  });

  it('at end of input answers every call already read, mutating ones included, before exiting 0', async () => {
    const m = start({ RUNTIME_MCP_MUTATIONS: '1' });
    const lines = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pipe', version: '1' } },
      },
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'create_task', arguments: { title: 'piped', project_id: '123e4567-e89b-42d3-a456-426614174000' } },
      },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_tasks', arguments: {} } },
    ];
    // the last line without a newline, as `printf 'a\nb'` sends it
    m.proc.stdin.end(lines.map((l) => JSON.stringify(l)).join('\n'));
    expect(await m.exited).toBe(0);
    mcp = undefined;
    expect(m.frames.map((f) => f.id).sort()).toEqual([1, 2, 3]);
    expect(m.frames.every((f) => f.result !== undefined)).toBe(true);
    const executed = upstream.toolRequests().find((r) => r.url === '/api/actions/execute');
    expect(JSON.parse(executed!.body)).toMatchObject({ kind: 'task.create', params: { title: 'piped' } });
  });

  it('exits 0 without a stack trace once its output is gone (the client went away)', async () => {
    const m = start();
    expect(await m.request(1, 'ping')).toMatchObject({ id: 1, result: {} });
    m.proc.stdout.destroy();
    // the answer to this one meets a closed pipe: the session is over
    m.sendLine(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }));
    expect(await m.exited).toBe(0);
    mcp = undefined;
    expect(m.output().stderr).not.toMatch(/EPIPE|Unhandled|at /);
  });

  it("starts when the task server's own variables hold values the task server itself would refuse", async () => {
    const m = start({ PORT: 'abc', DISPATCHER_INTERVAL_MS: '-5', CRON_MANAGER_PORT: 'x', RESTORE_MAX_BYTES: '0' });
    expect(await m.request(1, 'ping')).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('answers unknown methods with -32601, ping with {}, and negotiates and pins the protocol version', async () => {
    const m = start();
    expect(await m.request(1, 'resources/list')).toMatchObject({ error: { code: -32601 } });
    expect(await m.request(2, 'prompts/list')).toMatchObject({ error: { code: -32601 } });
    expect(await m.request(3, 'ping')).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
    const init = await m.request(4, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 't', version: '1' },
    });
    const result = init.result as { protocolVersion: string; capabilities: Record<string, unknown> };
    expect(result.protocolVersion).toBe('2025-06-18');
    expect(Object.keys(result.capabilities)).toEqual(['tools']);
  });

  it('lists the 10 read tools without mutations and all 13 with RUNTIME_MCP_MUTATIONS=1, with input schemas', async () => {
    const off = start();
    const listOff = ((await off.request(1, 'tools/list')).result as { tools: Array<{ name: string; inputSchema: { type: string } }> })
      .tools;
    expect(listOff.map((t) => t.name).sort()).toEqual([
      'get_budget_ledger',
      'get_cost_rollup',
      'get_costs_summary',
      'get_fleet_status',
      'get_mission_control_summary',
      'get_task',
      'list_budgets',
      'list_snapshots',
      'list_tasks',
      'search_audit',
    ]);
    for (const t of listOff) expect(t.inputSchema.type).toBe('object');
    await off.stop();
    mcp = undefined;
    const on = start({ RUNTIME_MCP_MUTATIONS: '1' });
    const listOn = ((await on.request(1, 'tools/list')).result as { tools: Array<{ name: string }> }).tools;
    expect(listOn).toHaveLength(13);
    expect(listOn.map((t) => t.name)).toEqual(expect.arrayContaining(['create_task', 'update_task', 'create_snapshot']));
  });

  it('refuses mutating tools while mutations are off, with zero upstream requests', async () => {
    const m = start();
    let id = 1;
    for (const name of ['create_task', 'update_task', 'create_snapshot']) {
      const { payload, isError } = toolPayload(await m.request(id++, 'tools/call', { name, arguments: { title: 'x' } }));
      expect(isError).toBe(true);
      expect(payload).toMatchObject({ error: 'mutations_disabled' });
    }
    await new Promise((r) => setImmediate(r));
    expect(upstream.requests).toEqual([]);
  });

  const rejections: Array<[string, Record<string, unknown>, RegExp]> = [
    ['list_tasks', { limit: 0 }, /limit must be an integer from 1 to 200/],
    ['list_tasks', { limit: 201 }, /limit must be an integer from 1 to 200/],
    ['list_tasks', { limit: 2.5 }, /limit must be an integer from 1 to 200/],
    ['list_tasks', { include_archived: 'yes' }, /include_archived must be true or false/],
    ['list_tasks', { project_id: 'p1' }, /project_id must be a UUID/],
    ['list_tasks', { colour: 'red' }, /unknown argument colour; legal arguments: status, project_id, limit, include_archived, fields/],
    ['list_tasks', { status: 'done' }, /status must be one of backlog, ready, in_progress/],
    ['list_tasks', { fields: ['title', 'secret'] }, /fields must be "all" or a list drawn from id, project_id, title/],
    [
      'update_task',
      { task_id: '123e4567-e89b-42d3-a456-426614174000', patch: { colour: 'red' } },
      /patch fields must be drawn from title, description/,
    ],
    ['get_task', {}, /task_id must be a UUID/],
    ['get_costs_summary', { days: 0 }, /days must be an integer from 1 to 90/],
    ['get_costs_summary', { days: 91 }, /days must be an integer from 1 to 90/],
    ['get_cost_rollup', { group_by: 'model' }, /group_by must be one of agent, department, workflow_type/],
    ['get_cost_rollup', { days: '7' }, /days must be an integer from 1 to 90/],
    ['get_budget_ledger', { budget_id: '1' }, /budget_id must be a UUID/],
    [
      'get_budget_ledger',
      { budget_id: '123e4567-e89b-42d3-a456-426614174000', period: '2026-13' },
      /period must be "current" or a month in the form YYYY-MM/,
    ],
    ['get_fleet_status', { running_limit: 101 }, /running_limit must be an integer from 1 to 100/],
    ['get_fleet_status', { include_stuck: 1 }, /include_stuck must be true or false/],
    [
      'get_mission_control_summary',
      { sections: ['health', 'weather'] },
      /must be one of health, agents, queue, runs, blockers, cron, costs, budgets/,
    ],
    ['get_mission_control_summary', { sections: [] }, /sections must name at least one of/],
    ['search_audit', { limit: 501 }, /limit must be an integer from 1 to 500/],
    ['search_audit', { offset: -1 }, /offset must be an integer of at least 0/],
    ['search_audit', { start_date: '2026/01/01' }, /start_date must be a date in the form YYYY-MM-DD/],
    ['list_budgets', { extra: true }, /unknown argument extra; legal arguments: none/],
    ['create_task', { project_id: '123e4567-e89b-42d3-a456-426614174000' }, /title is required/],
    [
      'create_task',
      { title: 't', project_id: '123e4567-e89b-42d3-a456-426614174000', status: 'done' },
      /status must be one of backlog, ready/,
    ],
    [
      'create_task',
      { title: 't', project_id: '123e4567-e89b-42d3-a456-426614174000', due_date: 'tomorrow' },
      /due_date must be an ISO date/,
    ],
    ['update_task', { task_id: '123e4567-e89b-42d3-a456-426614174000', patch: 'x' }, /patch must be an object/],
    ['create_snapshot', { name: 'n'.repeat(121) }, /name must be a string of at most 120 characters/],
  ];

  it('rejects every invalid argument before any HTTP call, naming the legal values or range', async () => {
    const m = start({ RUNTIME_MCP_MUTATIONS: '1' });
    let id = 1;
    for (const [name, args, message] of rejections) {
      const { payload, isError } = toolPayload(await m.request(id++, 'tools/call', { name, arguments: args }));
      expect(isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect((payload as { message: string }).message, `${name} ${JSON.stringify(args)}`).toMatch(message);
    }
    expect(upstream.toolRequests()).toEqual([]);
  });

  it('posts one telemetry record per executed call (validation failures count as error), with the bearer token, and none for protocol rejects', async () => {
    const m = start();
    toolPayload(await m.request(1, 'tools/call', { name: 'list_tasks', arguments: {} }));
    toolPayload(await m.request(2, 'tools/call', { name: 'list_tasks', arguments: { limit: 0 } }));
    await m.request(3, 'tools/list');
    await m.request(4, 'ping');
    await m.stop();
    mcp = undefined;
    const telemetry = upstream.requests.filter((r) => r.url === '/api/mcp/telemetry');
    expect(telemetry.map((r) => JSON.parse(r.body).outcome).sort()).toEqual(['error', 'ok']);
    for (const r of telemetry) {
      expect(JSON.parse(r.body)).toMatchObject({ tool: 'list_tasks' });
      expect(typeof JSON.parse(r.body).durationMs).toBe('number');
    }
    expect(upstream.requests.every((r) => r.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });

  it('applies list_tasks status and limit in the adapter and reports truncation', async () => {
    const m = start();
    const { payload } = toolPayload(await m.request(1, 'tools/call', { name: 'list_tasks', arguments: { status: 'ready', limit: 1 } }));
    expect(payload).toEqual({ tasks: [{ id: 'a', status: 'ready' }], total: 1, truncated: false, include_archived: false });
  });

  it('returns list_tasks rows with the summary fields by default, the named fields, or whole rows for "all"', async () => {
    const m = start();
    // the keys the API answers (lock_generation AS lock_token is answered as lock_token)
    const keys = taskColumns.split(', ').map((c) => c.split(' AS ').at(-1)!);
    const full = { ...Object.fromEntries(keys.map((c) => [c, `${c}-value`])), status: 'ready', archived_at: null, deleted_at: null };
    upstreamTasks = [full];
    const summary = toolPayload(await m.request(1, 'tools/call', { name: 'list_tasks', arguments: {} })).payload as {
      tasks: Array<Record<string, unknown>>;
    };
    expect(Object.keys(summary.tasks[0]!).sort()).toEqual([...summaryTaskFields].sort());
    const named = toolPayload(await m.request(2, 'tools/call', { name: 'list_tasks', arguments: { fields: ['title', 'metadata'] } }))
      .payload as typeof summary;
    expect(named.tasks).toEqual([{ title: 'title-value', metadata: 'metadata-value' }]);
    const token = toolPayload(await m.request(4, 'tools/call', { name: 'list_tasks', arguments: { fields: ['id', 'lock_token'] } }))
      .payload as typeof summary;
    expect(token.tasks).toEqual([{ id: 'id-value', lock_token: 'lock_token-value' }]);
    const column = toolPayload(
      await m.request(5, 'tools/call', { name: 'list_tasks', arguments: { fields: ['lock_generation AS lock_token'] } }),
    );
    expect(column.payload).toMatchObject({ error: 'invalid_arguments', message: expect.stringContaining('lock_token') });
    const all = toolPayload(await m.request(3, 'tools/call', { name: 'list_tasks', arguments: { fields: 'all' } }))
      .payload as typeof summary;
    expect(all.tasks).toEqual([full]);
    upstreamTasks = defaultTasks;
  });

  it('never writes the token to stdout or stderr', async () => {
    const m = start({ RUNTIME_MCP_MUTATIONS: '1' });
    let id = 1;
    for (const [name, args] of rejections) await m.request(id++, 'tools/call', { name, arguments: args });
    await m.request(id++, 'tools/call', { name: 'get_fleet_status', arguments: {} });
    await m.stop();
    mcp = undefined;
    const { stdout, stderr } = m.output();
    expect(stdout).not.toContain(TOKEN);
    expect(stderr).not.toContain(TOKEN);
  });
});
