import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { watch } from '../http/stream-support';
import { startChild, type Child } from '../support/child-process';
import { freePort } from '../support/free-port';
import { createTestDatabase } from '../support/test-app';

/*
 * The server against the agent runtime as released: the real `openclaw` (FLEET_IT_OPENCLAW, its
 * entry script) and its gateway on loopback, run by a Node 24 (FLEET_IT_NODE24_BIN), with a mock
 * OpenAI-compatible model written here, so that real agent turns run; the built server (on the same
 * Node 24) is driven through its runtime routes. `.ci/run` installs the pinned runtime and sets both
 * variables; without them this file says in one line why it did not run.
 */
const NODE24_BIN = process.env.FLEET_IT_NODE24_BIN;
const OPENCLAW = process.env.FLEET_IT_OPENCLAW;
const missing =
  !NODE24_BIN || !OPENCLAW
    ? 'FLEET_IT_NODE24_BIN and FLEET_IT_OPENCLAW are not set (.ci/run installs openclaw@2026.9.6 and node 24 and sets them)'
    : !existsSync(path.join(NODE24_BIN, 'node')) || !existsSync(OPENCLAW)
      ? `no node in ${NODE24_BIN} or no ${OPENCLAW}`
      : undefined;
if (missing) process.stdout.write(`openclaw-runtime.test.ts did not run against the real runtime: ${missing}\n`);

const TOKEN = 'server-token-openclaw-it';
const GATEWAY_TOKEN = 'gateway-token-openclaw-it';
const REPLY = 'Hello from the mock model.';
/** Each CLI start costs seconds (tens on a busy two-core machine); an agent turn more than a minute there. */
const SLOW = 300_000;

let stateDir: string;
let model: http.Server;
/** Every prompt the mock model received, as the text of its messages. */
const prompts: string[] = [];
let gateway: Child;
let server: Child;
let baseUrl: string;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let env: NodeJS.ProcessEnv;

async function api(method: string, target: string, body?: unknown) {
  const res = await fetch(`${baseUrl}${target}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/**
 * This process's environment without the test runner's own variables: the runtime is built and
 * tested with vitest too, and changes how it runs (its logging, for one) when it sees them.
 */
function runtimeEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !key.startsWith('VITEST') && key !== 'NODE_ENV' && key !== 'NODE_OPTIONS' && key !== 'TEST',
    ),
  );
}

/** The operator's own CLI call, as they would type it. */
function openclaw(...args: string[]): unknown {
  const run = spawnSync(path.join(NODE24_BIN!, 'node'), [OPENCLAW!, ...args], { env, encoding: 'utf8', timeout: SLOW });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout);
}

/** A workflow template of one step, named `<prefix>-<now>`, whose runs the dispatcher routes to `agent`. */
async function workflowRoutedTo(agent: string, prefix: string): Promise<string> {
  const type = `${prefix}-${Date.now()}`;
  expect((await api('POST', '/api/workflow-templates', { name: type, steps: ['draft'] })).status).toBe(201);
  const db = new pg.Client({ connectionString: database.url });
  await db.connect();
  try {
    await db.query('INSERT INTO workflow_agent_routing (workflow_type, agent_id, priority, timeout_minutes) VALUES ($1, $2, 0, 60)', [
      type,
      agent,
    ]);
  } finally {
    await db.end();
  }
  return type;
}

/** An OpenAI-compatible chat completions endpoint that always answers REPLY, streamed or not, with usage. */
function mockModel(): Promise<http.Server> {
  const usage = { prompt_tokens: 1000, completion_tokens: 50, total_tokens: 1050 };
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const doc = text ? (JSON.parse(text) as { stream?: boolean; messages?: unknown[] }) : {};
      prompts.push(JSON.stringify(doc.messages ?? []));
      if (!req.url?.endsWith('/chat/completions')) {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ object: 'list', data: [{ id: 'mock-1', object: 'model' }] }));
        return;
      }
      const base = { id: 'cmpl-1', created: 1, model: 'mock-1' };
      if (!doc.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            ...base,
            object: 'chat.completion',
            choices: [{ index: 0, message: { role: 'assistant', content: REPLY }, finish_reason: 'stop' }],
            usage,
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (extra: object) => res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', ...extra })}\n\n`);
      chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: REPLY }, finish_reason: null }] });
      chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
      chunk({ choices: [], usage });
      res.end('data: [DONE]\n\n');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe.skipIf(missing !== undefined)('the server against OpenClaw 2026.9.6 (real CLI and gateway)', () => {
  beforeAll(async () => {
    stateDir = mkdtempSync(path.join(os.tmpdir(), 'openclaw-it-'));
    model = await mockModel();
    const gatewayPort = await freePort();
    const modelUrl = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;
    writeFileSync(
      path.join(stateDir, 'openclaw.json'),
      JSON.stringify({
        gateway: { mode: 'local', bind: 'loopback', port: gatewayPort, auth: { mode: 'token', token: GATEWAY_TOKEN } },
        agents: { defaults: { model: { primary: 'mock/mock-1' } } },
        models: {
          mode: 'merge',
          providers: {
            mock: {
              baseUrl: modelUrl,
              apiKey: 'sk-mock',
              api: 'openai-completions',
              models: [
                {
                  id: 'mock-1',
                  name: 'Mock',
                  reasoning: false,
                  input: ['text'],
                  cost: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 },
                  contextWindow: 128000,
                  maxTokens: 1024,
                },
              ],
            },
          },
        },
      }),
    );
    env = {
      ...runtimeEnv(),
      PATH: `${NODE24_BIN}${path.delimiter}${process.env.PATH}`,
      OPENCLAW_STATE_DIR: stateDir,
      OPENCLAW_SKIP_CHANNELS: '1',
      OPENCLAW_GATEWAY_URL: `ws://127.0.0.1:${gatewayPort}`,
      OPENCLAW_GATEWAY_TOKEN: GATEWAY_TOKEN,
    };
    gateway = startChild(
      path.join(NODE24_BIN!, 'node'),
      [OPENCLAW!, 'gateway', 'run', '--port', String(gatewayPort), '--bind', 'loopback'],
      { env },
    );
    await gateway.waitFor(/\[gateway\]\S*\s+\S*ready/, SLOW);

    database = await createTestDatabase();
    // the server is given no gateway variable: as on an operator's machine, it finds the gateway and its
    // token in the runtime's openclaw.json, and the CLI it starts reads the same file
    const { OPENCLAW_GATEWAY_URL: _url, OPENCLAW_GATEWAY_TOKEN: _token, ...serverEnv } = env;
    server = startChild(path.join(NODE24_BIN!, 'node'), ['dist/server.js'], {
      env: {
        ...serverEnv,
        DATABASE_URL: database.url,
        DATA_DIR: path.join(stateDir, 'server-data'),
        PORT: '0',
        DASHBOARD_AUTH_TOKEN: TOKEN,
        DISPATCHER_INTERVAL_MS: '0',
        CRON_MANAGER_PORT: '0',
        LOG_LEVEL: 'WARN',
        RUNTIME_CLI: OPENCLAW,
        RUNTIME_STATE_DIR: stateDir,
        RUNTIME_CLI_TIMEOUT_MS: String(SLOW),
        RUNTIME_MEMORY_TIMEOUT_MS: String(SLOW),
        RUNTIME_WAKE_TIMEOUT_MS: String(SLOW),
      },
    });
    baseUrl = (await server.waitFor(/task server ready at (http:\/\/\S+)/, 60_000))[1]!;
  }, 2 * SLOW);

  afterAll(async () => {
    for (const child of [server, gateway]) {
      if (child && child.proc.exitCode === null) {
        child.proc.kill('SIGTERM');
        await child.exited;
      }
    }
    await new Promise((resolve) => model?.close(resolve));
    await database?.drop();
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  }, SLOW);

  it(
    'health: the runtime health and /api/health-status with the gateway connected',
    async () => {
      const health = await api('GET', '/api/runtime/health');
      expect(health.status, JSON.stringify(health.body)).toBe(200);
      expect(health.body).toMatchObject({ ok: true, defaultAgentId: 'main' });
      const status = await api('GET', '/api/health-status');
      expect(status.body.gateway).toMatchObject({ status: 'connected', default_agent_id: 'main' });
      // OPENCLAW_GATEWAY_URL/TOKEN are set: sessions are read through the gateway, which answers
      expect(status.body.runtime_access).toEqual({ way: 'gateway', healthy: true, status: 'answering' });
    },
    SLOW,
  );

  it(
    'tasks, audit and agents; a task filter the runtime would refuse is a 400',
    async () => {
      expect((await api('GET', '/api/runtime/tasks?status=bogus')).status).toBe(400);
      const tasks = await api('GET', '/api/runtime/tasks?status=running');
      expect(tasks.status, JSON.stringify(tasks.body)).toBe(200);
      const audit = await api('GET', '/api/runtime/tasks/audit');
      expect(audit.status, JSON.stringify(audit.body)).toBe(200);
      expect(audit.body).toMatchObject({ stale: expect.any(Array), broken: expect.any(Array), summary: expect.any(Object) });
      const agents = await api('GET', '/api/runtime/agents');
      expect(agents.status, JSON.stringify(agents.body)).toBe(200);
      expect(agents.body.agents.map((a: { id: string }) => a.id)).toContain('main');
    },
    4 * SLOW,
  );

  it(
    'memory: index (text) and promote',
    async () => {
      const index = await api('POST', '/api/runtime/memory/index?agent=main');
      expect(index.status, JSON.stringify(index.body)).toBe(200);
      expect(typeof index.body.result.output).toBe('string');
      const promote = await api('POST', '/api/runtime/memory/promote', { agent: 'main', limit: 3 });
      expect(promote.status, JSON.stringify(promote.body)).toBe(200);
      expect(promote.body.promoted).toEqual(expect.any(Array));
    },
    4 * SLOW,
  );

  it(
    'cron: a disabled job is listed and stays manageable (enable, disable, run, runs)',
    async () => {
      const added = openclaw(
        'cron',
        'add',
        '--name',
        'it-disabled',
        '--every',
        '1h',
        '--command',
        'echo from-cron',
        '--disabled',
        '--json',
      ) as { id: string };
      const list = await api('GET', '/api/cron/jobs');
      expect(list.status).toBe(200);
      expect(list.body.jobs.find((j: { id: string }) => j.id === added.id)).toMatchObject({ name: 'it-disabled', enabled: false });
      expect((await api('POST', `/api/cron/jobs/${added.id}/enable`)).status).toBe(200);
      expect((await api('POST', `/api/cron/jobs/${added.id}/disable`)).status).toBe(200);
      const run = await api('POST', `/api/cron/jobs/${added.id}/run`);
      expect(run.status, JSON.stringify(run.body)).toBe(202);
      await vi.waitFor(
        async () => {
          const runs = await api('GET', `/api/cron/jobs/${added.id}/runs?limit=5`);
          expect(runs.status).toBe(200);
          expect(runs.body.runs[0]).toMatchObject({
            id: expect.stringContaining(added.id),
            status: 'success',
            startedAt: expect.any(String),
            finishedAt: expect.any(String),
          });
        },
        { timeout: 2 * SLOW, interval: 1000 },
      );
    },
    5 * SLOW,
  );

  it(
    'chat: a real agent turn answers the model reply',
    async () => {
      const res = await api('POST', '/api/agent/chat', { message: 'hello from the task server', sessionKey: 'agent:main:main' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.reply).toBe(REPLY);
      expect(prompts.some((p) => p.includes('hello from the task server'))).toBe(true);
    },
    2 * SLOW,
  );

  it(
    "sessions through the gateway: the list, the real turn's events and messages, and a task's run linked to its session",
    async () => {
      const list = await api('GET', '/api/rt/sessions?agent=main');
      expect(list.status, JSON.stringify(list.body)).toBe(200);
      const main = list.body.sessions.find((s: { key: string }) => s.key === 'agent:main:main');
      expect(main).toMatchObject({ sessionId: expect.any(String), updatedAt: expect.any(Number) });
      const sessionId = main.sessionId as string;

      const events = await api('GET', `/api/rt/sessions/${sessionId}/events?agent=main&limit=2000`);
      expect(events.status, JSON.stringify(events.body)).toBe(200);
      const all = events.body.events as Array<Record<string, any>>;
      expect(all.some((e) => e.kind === 'user_message' && String(e.preview).includes('hello from the task server'))).toBe(true);
      const reply = all.find((e) => e.assistant !== undefined && e.preview === REPLY);
      // the mock model reports 1000 prompt and 50 completion tokens; the runtime prices them from its model table
      expect(reply).toMatchObject({
        role: 'assistant',
        assistant: {
          provider: 'mock',
          model: 'mock-1',
          usage: expect.objectContaining({ input: 1000, output: 50 }),
          cost: expect.objectContaining({ total: expect.any(Number) }),
        },
      });
      expect(all.find((e) => e.kind === 'model_change')).toMatchObject({ model: { provider: 'mock', modelId: 'mock-1' } });

      const messages = await api('GET', `/api/rt/sessions/${sessionId}/messages?agent=main`);
      expect(messages.status).toBe(200);
      expect(messages.body.messages.some((m: { message: { role: string } }) => m.message.role === 'assistant')).toBe(true);

      const db = new pg.Client({ connectionString: database.url });
      await db.connect();
      let taskId: string;
      try {
        const project = await db.query<{ id: string }>(
          `INSERT INTO projects (id, name) VALUES (gen_random_uuid(), 'it-sessions') RETURNING id`,
        );
        const task = await db.query<{ id: string }>(
          `INSERT INTO tasks (id, project_id, title) VALUES (gen_random_uuid(), $1, 'it-session-link') RETURNING id`,
          [project.rows[0]!.id],
        );
        taskId = task.rows[0]!.id;
        await db.query(
          `INSERT INTO workflow_runs (id, workflow_type, status, task_id, gateway_session_id) VALUES (gen_random_uuid(), 'it-sessions', 'completed', $1, 'agent:main:main')`,
          [taskId],
        );
      } finally {
        await db.end();
      }
      const linked = await api('GET', `/api/tasks/${taskId}/sessions`);
      expect(linked.status, JSON.stringify(linked.body)).toBe(200);
      expect(linked.body.sessions[0]).toMatchObject({
        sessionKey: 'agent:main:main',
        agentId: 'main',
        sessionId,
        deepLink: { view: 'session-replay', params: { sessionId, agentId: 'main' } },
      });
    },
    SLOW,
  );

  it(
    "a live tail: a real agent turn arrives on a tail opened before it, the question and the model's reply",
    async () => {
      const list = await api('GET', '/api/rt/sessions?agent=main');
      const sessionId = list.body.sessions.find((s: { key: string }) => s.key === 'agent:main:main').sessionId as string;
      const before = await api('GET', `/api/rt/sessions/${sessionId}/events?agent=main&limit=1`);
      expect(before.status, JSON.stringify(before.body)).toBe(200);
      const from = Number(before.body.totalLines);
      const tail = watch(`${baseUrl}/api/rt/sessions/${sessionId}/tail?agent=main&afterLine=${from}`, ['transcript'], {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      try {
        await tail.opened;
        const chat = await api('POST', '/api/agent/chat', { message: 'a question seen on the tail', sessionKey: 'agent:main:main' });
        expect(chat.status, JSON.stringify(chat.body)).toBe(200);
        const question = await tail.waitFor(
          (e) => String((e.data as { preview?: string }).preview).includes('a question seen on the tail'),
          2 * SLOW,
        );
        const reply = await tail.waitFor(
          (e) => Number(e.id) > Number(question.id) && (e.data as { preview?: string }).preview === REPLY,
          2 * SLOW,
        );
        expect(question.data).toMatchObject({ kind: 'user_message' });
        expect(reply.data).toMatchObject({ role: 'assistant', assistant: { provider: 'mock', model: 'mock-1' } });
        // every frame is past the cursor, in line order
        const lines = tail.events.map((e) => Number(e.id));
        expect(lines.every((n, i) => n > from && (i === 0 || n >= lines[i - 1]!))).toBe(true);
      } finally {
        tail.close();
      }
    },
    3 * SLOW,
  );

  it(
    'a dispatched run wakes its target agent through its main session',
    async () => {
      const type = await workflowRoutedTo('main', 'it-wake');
      const run = await api('POST', '/api/workflow-runs', { workflow_type: type });
      expect(run.status).toBe(201);
      const tick = await api('POST', '/api/workflow-runs/dispatcher/tick');
      expect(tick.status).toBe(200);
      expect(tick.body).toMatchObject({ dispatched: 1, woken: 1, wakeFailed: 0 });
      // the wake is a system event on agent:main:main: the agent's next turn carries the run's id
      await vi.waitFor(() => expect(prompts.some((p) => p.includes(run.body.id as string))).toBe(true), {
        timeout: 2 * SLOW,
        interval: 1000,
      });
    },
    5 * SLOW,
  );

  it(
    'a run whose agent reported no usage is costed from its session as the runtime recorded it',
    async () => {
      const type = await workflowRoutedTo('main', 'it-costed');
      const run = await api('POST', '/api/workflow-runs', { workflow_type: type });
      expect(run.status).toBe(201);
      const id = run.body.id as string;
      expect((await api('POST', '/api/workflow-runs/dispatcher/tick')).body).toMatchObject({ dispatched: 1 });
      const session = 'agent:main:main';
      const claim = await api('POST', `/api/workflow-runs/${id}/claim`, { agent_id: 'main', session_id: session });
      expect(claim.status, JSON.stringify(claim.body)).toBe(200);
      // a real turn of the run's session between its claim and its finish, priced by the runtime
      expect((await api('POST', '/api/agent/chat', { message: `working on ${id}`, sessionKey: session })).status).toBe(200);
      const done = await api('POST', `/api/workflow-runs/${id}/complete`, { session_id: session });
      expect(done.status, JSON.stringify(done.body)).toBe(200);
      await vi.waitFor(
        async () => {
          await api('POST', '/api/workflow-runs/dispatcher/tick');
          const costed = await api('GET', `/api/workflow-runs/${id}`);
          expect(costed.body).toMatchObject({ cost_source: 'runtime' });
          expect(costed.body.input_tokens).toBeGreaterThanOrEqual(1000);
          expect(costed.body.cost_estimate).toBeGreaterThan(0);
        },
        { timeout: SLOW, interval: 2000 },
      );
    },
    3 * SLOW,
  );

  it(
    'chat: a real agent turn records and answers its cost as the runtime priced it',
    async () => {
      const res = await api('POST', '/api/agent/chat', { message: 'what does this cost', sessionKey: 'agent:main:main' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      // the mock model answers 1000 prompt and 50 completion tokens a call, priced by the runtime at 1 and 2 USD per million
      expect(res.body.usage).toMatchObject({ model_id: 'mock-1', cost_source: 'runtime', currency: 'USD' });
      expect(res.body.usage.input_tokens).toBeGreaterThanOrEqual(1000);
      expect(res.body.usage.output_tokens).toBeGreaterThanOrEqual(50);
      expect(res.body.usage.cost_estimate).toBeGreaterThan(0);
    },
    2 * SLOW,
  );

  it(
    'cron: POST /api/cron/jobs adds the job through cron add; it is listed, enabled, disabled, run and deleted',
    async () => {
      const created = await api('POST', '/api/cron/jobs', {
        id: 'it-added',
        minute: '0',
        hour: '4',
        command: 'echo added-by-server',
        description: 'from the task server',
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body).toMatchObject({
        success: true,
        name: 'it-added',
        legacy: false,
        job: { name: 'it-added', enabled: true, description: 'from the task server' },
      });
      const id = created.body.id as string;
      expect(openclaw('cron', 'list', '--all', '--json')).toMatchObject({
        jobs: expect.arrayContaining([expect.objectContaining({ id, name: 'it-added' })]),
      });
      const list = await api('GET', '/api/cron/jobs');
      expect(list.body.jobs.find((j: { id: string }) => j.id === id)).toMatchObject({
        legacy: false,
        schedule: expect.stringContaining('0 4 * * *'),
      });
      expect((await api('POST', `/api/cron/jobs/${id}/disable`)).status).toBe(200);
      expect((await api('POST', `/api/cron/jobs/${id}/enable`)).status).toBe(200);
      const run = await api('POST', `/api/cron/jobs/${id}/run`);
      expect(run.status, JSON.stringify(run.body)).toBe(202);
      await vi.waitFor(
        async () => {
          const runs = await api('GET', `/api/cron/jobs/${id}/runs?limit=5`);
          expect(runs.body.runs[0]).toMatchObject({ status: 'success' });
        },
        { timeout: 2 * SLOW, interval: 1000 },
      );
      // and removed through cron rm: the runtime no longer lists it
      const removed = await api('DELETE', `/api/cron/jobs/${id}`);
      expect(removed.status, JSON.stringify(removed.body)).toBe(200);
      expect(removed.body).toEqual({ success: true, id, legacy: false });
      expect((openclaw('cron', 'list', '--all', '--json') as { jobs: Array<{ id: string }> }).jobs.map((j) => j.id)).not.toContain(id);
    },
    5 * SLOW,
  );
});
