import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { releasedHistory, releasedSessions, startFakeGateway } from '../fixtures/runtime/fake-gateway';
import { useFakeRuntimeApp } from '../support/use-app';

/*
 * The session reader through the released runtime's gateway (docs/adr/0010-reaching-the-released-runtime.md):
 * the fake gateway answers from what the real one printed (test/fixtures/runtime/fake-gateway.ts);
 * the CLI stays the fake executable. The session of chat_history.out has two failed turns, a plain
 * reply, a repeated question, a tool call with its result and a last reply.
 */
const GATEWAY_TOKEN = 'gw-secret-token-5f1c';
const gateway = await startFakeGateway(GATEWAY_TOKEN);
afterAll(() => gateway.close());
afterEach(async () => {
  gateway.setMode('ok');
  await gateway.start().catch(() => undefined);
});

const app = useFakeRuntimeApp({
  RUNTIME_GATEWAY_URL: gateway.url,
  RUNTIME_GATEWAY_TOKEN: GATEWAY_TOKEN,
  RUNTIME_GATEWAY_TIMEOUT_MS: '1500',
});
const SESSION = releasedHistory.sessionId;
const main = releasedSessions.find((s) => s.key === 'agent:main:main')!;

type Event = { line: number; kind: string; type: string; role: string | null; [key: string]: unknown };

describe('the session reader through the gateway', () => {
  it("lists an agent's sessions from the gateway, newest first, with their keys and kinds", async () => {
    const res = await app.http('GET', '/api/rt/sessions?agent=main');
    expect(res.status).toBe(200);
    expect(res.body.agentId).toBe('main');
    expect(res.body.sessions.map((s: { key: string }) => s.key)).toEqual(releasedSessions.map((s) => s.key));
    expect(res.body.sessions[0]).toMatchObject({
      sessionId: main.sessionId,
      key: 'agent:main:main',
      kind: 'direct',
      status: 'done',
      updatedAt: main.updatedAt,
    });
    expect(res.body.total).toBe(releasedSessions.length);
  });

  it("lists every agent's sessions (all=true) and the agents with their session counts", async () => {
    const all = await app.http('GET', '/api/rt/sessions?all=true');
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(releasedSessions.length);
    expect(all.body.sessions.every((s: { agentId: string }) => s.agentId === 'main')).toBe(true);
    const agents = await app.http('GET', '/api/rt/agents');
    expect(agents.body.agents).toEqual([{ agentId: 'main', sessions: releasedSessions.length }]);
  });

  it('an agent the gateway lists no session for is a 404, as an agent without an index file', async () => {
    const res = await app.http('GET', '/api/rt/sessions?agent=nobody');
    expect(res.status).toBe(404);
    expect(res.body.error).toMatch(/nobody/);
  });

  it("replays a session's history as events: failed turns, the model, usage and cost, the tool call paired with its result", async () => {
    const res = await app.http('GET', `/api/rt/sessions/${SESSION}/events?agent=main&limit=2000`);
    expect(res.status).toBe(200);
    const events = res.body.events as Event[];
    expect(events[0]).toMatchObject({ line: 1, kind: 'session_meta', meta: { id: SESSION } });
    const failed = events.filter((e) => e.type === 'custom_message');
    expect(failed).toHaveLength(2);
    expect(failed[0]).toMatchObject({
      kind: 'other',
      role: 'assistant',
      isError: true,
      failedTurn: {
        runId: 'b1654e5f-0ff2-4357-970a-9f1abbce5a35',
        error: 'No route-compatible authentication source is configured for openai.',
      },
    });
    // the history leaves the runtime's model snapshots out: one is written before the first reply of a model
    const models = events.filter((e) => e.kind === 'model_change');
    expect(models).toEqual([expect.objectContaining({ type: 'custom', model: { provider: 'mock', modelId: 'mock-1' } })]);
    const replies = events.filter((e) => e.assistant !== undefined);
    expect(replies).toHaveLength(4);
    expect(replies[0]).toMatchObject({
      role: 'assistant',
      assistant: {
        provider: 'mock',
        model: 'mock-1',
        stopReason: 'stop',
        usage: expect.objectContaining({ input: 1034, output: 56 }),
        cost: expect.objectContaining({ total: 0.004002 }),
      },
    });
    const call = events.find((e) => e.kind === 'tool_call')!;
    const result = events.find((e) => e.kind === 'tool_result')!;
    expect(call).toMatchObject({
      assistant: { stopReason: 'toolUse' },
      tool: { toolCallId: 'call_1', name: 'exec', resultLine: result.line },
    });
    expect(result).toMatchObject({ tool: { toolCallId: 'call_1', callLine: call.line } });
    expect(res.body).toMatchObject({ hasMore: false, partial: false, truncated: false, totalLines: releasedHistory.messages.length + 2 });
  });

  it("pages events by line and answers one line's detail with its source", async () => {
    const first = await app.http('GET', `/api/rt/sessions/${SESSION}/events?agent=main&limit=3`);
    expect(first.body).toMatchObject({ hasMore: true, nextAfterLine: 3 });
    const next = await app.http('GET', `/api/rt/sessions/${SESSION}/events?agent=main&afterLine=3&limit=2000`);
    expect(next.body.events[0].line).toBe(4);
    const detail = await app.http('GET', `/api/rt/sessions/${SESSION}/events/2?agent=main`);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ line: 2, found: true, source: { type: 'custom_message', customType: 'run-failed-before-reply' } });
  });

  it('answers the messages and the session detail, assistant facts and failed turns included', async () => {
    const res = await app.http('GET', `/api/rt/sessions/${SESSION}/messages?agent=main&limit=50`);
    expect(res.status).toBe(200);
    const messages = res.body.messages as Array<{ message: { role: string }; assistant?: unknown; failedTurn?: unknown }>;
    expect(messages.map((m) => m.message.role)).toEqual([
      'assistant',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'toolResult',
      'assistant',
    ]);
    expect(messages[0]).toMatchObject({ failedTurn: { runId: 'b1654e5f-0ff2-4357-970a-9f1abbce5a35' } });
    expect(messages[3]).toMatchObject({ assistant: { provider: 'mock', cost: expect.objectContaining({ total: 0.004002 }) } });
    const detail = await app.http('GET', `/api/rt/sessions/${SESSION}?agent=main&messages=2`);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      sessionId: SESSION,
      key: 'agent:main:main',
      agentId: 'main',
      transcriptAvailable: true,
      hasOlder: true,
    });
    expect(detail.body.messages).toHaveLength(2);
  });

  it('a session the gateway does not list is a 404', async () => {
    const res = await app.http('GET', '/api/rt/sessions/no-such-session/events?agent=main');
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('Session not found');
  });

  it("links a task's run to its session through the gateway's list", async () => {
    const projectId = randomUUID();
    const taskId = randomUUID();
    await app.db.query(`INSERT INTO projects (id, name) VALUES ($1, 'Gateway sessions')`, [projectId]);
    await app.db.query(`INSERT INTO tasks (id, project_id, title) VALUES ($1, $2, 'through the gateway')`, [taskId, projectId]);
    await app.db.query(
      `INSERT INTO workflow_runs (id, workflow_type, status, task_id, gateway_session_id, started_at, finished_at)
       VALUES ($1, 'content-pipeline', 'completed', $2, 'agent:main:main', now() - interval '1 hour', now())`,
      [randomUUID(), taskId],
    );
    const res = await app.http('GET', `/api/tasks/${taskId}/sessions`);
    expect(res.status).toBe(200);
    expect(res.body.sessions[0]).toMatchObject({
      sessionKey: 'agent:main:main',
      agentId: 'main',
      sessionId: SESSION,
      deepLink: { view: 'session-replay', params: { sessionId: SESSION, agentId: 'main' } },
    });
  });

  it('health-status names the gateway as the way sessions are read, and that it answers', async () => {
    const res = await app.http('GET', '/api/health-status');
    expect(res.status).toBe(200);
    expect(res.body.runtime_access).toEqual({ way: 'gateway', healthy: true, status: 'answering' });
    expect(res.body.checks.runtime_access).toEqual(res.body.runtime_access);
  });

  it('sends the gateway token as a bearer token and never answers it', async () => {
    const before = gateway.requests.length;
    const res = await app.http('GET', `/api/rt/sessions/${SESSION}?agent=main`);
    expect(res.status).toBe(200);
    expect(gateway.requests.slice(before).every((r) => r.authorized)).toBe(true);
    expect(JSON.stringify(res.body)).not.toContain(GATEWAY_TOKEN);
    const health = await app.http('GET', '/api/health-status');
    expect(JSON.stringify(health.body)).not.toContain(GATEWAY_TOKEN);
  });
});

describe('the gateway failing', () => {
  it('down: the session list and a transcript are a 502 with a JSON error saying the gateway cannot be reached, not waited on', async () => {
    await gateway.stop();
    const list = await app.http('GET', '/api/rt/sessions?agent=main');
    expect(list.status).toBe(502);
    expect(list.body).toMatchObject({ code: 'runtime_failed', failure: 'unavailable' });
    expect(list.body.error).toMatch(/cannot reach the gateway/);
    const events = await app.http('GET', `/api/rt/sessions/${SESSION}/events?agent=main`);
    // a refused connection is reported as such, not waited on until the request's timeout
    expect(events.body).toMatchObject({ code: 'runtime_failed', failure: 'unavailable' });
    const health = await app.http('GET', '/api/health-status');
    expect(health.body.status).toBe('degraded');
    expect(health.body.runtime_access).toMatchObject({ way: 'gateway', healthy: false, status: 'not_answering', failure: 'unavailable' });
  });

  it('hung: a gateway that accepts and never answers is a 502 timed_out after RUNTIME_GATEWAY_TIMEOUT_MS', async () => {
    gateway.setMode('hang');
    const res = await app.http('GET', '/api/rt/sessions?agent=main');
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ code: 'runtime_failed', failure: 'timed_out' });
    expect(res.body.error).toMatch(/no answer within 1500 ms/);
  });

  it("a task's sessions stay listed, unresolved, while the gateway is down", async () => {
    await gateway.stop();
    const projectId = randomUUID();
    const taskId = randomUUID();
    await app.db.query(`INSERT INTO projects (id, name) VALUES ($1, 'Gateway down')`, [projectId]);
    await app.db.query(`INSERT INTO tasks (id, project_id, title) VALUES ($1, $2, 'gateway down')`, [taskId, projectId]);
    await app.db.query(
      `INSERT INTO workflow_runs (id, workflow_type, status, task_id, gateway_session_id) VALUES ($1, 'content-pipeline', 'completed', $2, 'agent:main:main')`,
      [randomUUID(), taskId],
    );
    const res = await app.http('GET', `/api/tasks/${taskId}/sessions`);
    expect(res.status).toBe(200);
    expect(res.body.sessions[0]).toMatchObject({ sessionKey: 'agent:main:main', sessionId: null });
  });
});
