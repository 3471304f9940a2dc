import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { useFakeRuntimeApp } from '../support/use-app';

const app = useFakeRuntimeApp();
let projectId: string;
beforeAll(async () => {
  projectId = randomUUID();
  await app.db.query(`INSERT INTO projects (id, name) VALUES ($1, 'Sessions')`, [projectId]);
});

async function task(): Promise<string> {
  const id = randomUUID();
  await app.db.query(`INSERT INTO tasks (id, project_id, title) VALUES ($1, $2, 'with runs')`, [id, projectId]);
  return id;
}

interface RunSpec {
  status: string;
  key?: string | null;
  history?: string[];
  retry?: number;
  active?: boolean;
  createdAt: string;
  started?: string;
  finished?: string;
  heartbeat?: string;
}

async function run(taskId: string, spec: RunSpec): Promise<string> {
  const id = randomUUID();
  await app.db.query(
    `INSERT INTO workflow_runs (id, workflow_type, status, task_id, gateway_session_id, gateway_session_active, session_history,
                                retry_count, started_at, finished_at, heartbeat_at, created_at)
     VALUES ($1, 'content-pipeline', $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [
      id,
      spec.status,
      taskId,
      spec.key ?? null,
      spec.active ?? false,
      spec.history ?? [],
      spec.retry ?? 0,
      spec.started ?? null,
      spec.finished ?? null,
      spec.heartbeat ?? null,
      spec.createdAt,
    ],
  );
  return id;
}

describe('GET /api/tasks/:id/sessions', () => {
  it('derives one binding per run, newest first, resolving session keys through the agent index', async () => {
    const taskId = await task();
    const done = await run(taskId, {
      status: 'completed',
      key: 'agent:main:subagent:run-abc',
      createdAt: '2026-11-01T09:00:00Z',
      started: '2026-11-01T09:00:05Z',
      finished: '2026-11-01T09:30:00Z',
    });
    const live = await run(taskId, {
      status: 'running',
      key: 'agent:main:main:primary',
      active: true,
      createdAt: '2026-11-01T10:00:00Z',
      started: '2026-11-01T10:00:05Z',
      heartbeat: '2026-11-01T10:05:00Z',
    });
    await app.db.query('UPDATE tasks SET active_workflow_run_id = $1 WHERE id = $2', [live, taskId]);
    const before = await app.db.query('SELECT count(*)::int AS n FROM audit_log');

    const res = await app.http('GET', `/api/tasks/${taskId}/sessions`);
    expect(res.status).toBe(200);
    expect(res.body.taskId).toBe(taskId);
    expect(res.body.sessions).toHaveLength(2);
    const [first, second] = res.body.sessions;
    expect(first).toEqual({
      runId: live,
      workflowType: 'content-pipeline',
      runStatus: 'running',
      isActiveRun: true,
      sessionKey: 'agent:main:main:primary',
      agentId: 'main',
      sessionId: 'sess-main-1',
      sessionActive: true,
      liveness: 'live',
      startedAt: Date.parse('2026-11-01T10:00:05Z'),
      finishedAt: null,
      heartbeatAt: Date.parse('2026-11-01T10:05:00Z'),
      retryCount: 0,
      retryCycled: false,
      sessionHistory: [],
      deepLink: { view: 'console', params: { sessionKey: 'agent:main:main:primary' } },
    });
    expect(second).toMatchObject({
      runId: done,
      isActiveRun: false,
      liveness: 'completed',
      sessionId: 'sess-sub-1',
      sessionActive: false,
      finishedAt: Date.parse('2026-11-01T09:30:00Z'),
      deepLink: { view: 'session-replay', params: { sessionId: 'sess-sub-1', agentId: 'main' } },
    });
    const after = await app.db.query('SELECT count(*)::int AS n FROM audit_log');
    expect(after.rows).toEqual(before.rows);
  });

  it('marks an unresolvable key orphaned (sessionId null, no deep link) and maps failed statuses to failed', async () => {
    const taskId = await task();
    await run(taskId, { status: 'timed_out', key: 'agent:main:subagent:gone', createdAt: '2026-11-01T08:00:00Z' });
    await run(taskId, { status: 'cancelled', key: 'not-a-session-key', createdAt: '2026-11-01T08:10:00Z' });
    await run(taskId, { status: 'failed', key: 'agent:ghost:main:x', createdAt: '2026-11-01T08:20:00Z' });
    const res = await app.http('GET', `/api/tasks/${taskId}/sessions`);
    expect(res.body.sessions.map((s: { liveness: string }) => s.liveness)).toEqual(['failed', 'failed', 'failed']);
    expect(res.body.sessions[0]).toMatchObject({ agentId: 'ghost', sessionId: null, deepLink: null });
    expect(res.body.sessions[1]).toMatchObject({ sessionKey: 'not-a-session-key', agentId: null, sessionId: null, deepLink: null });
    expect(res.body.sessions[2]).toMatchObject({ agentId: 'main', sessionId: null, deepLink: null });
  });

  it('a re-queued run shows its latest earlier key and retryCycled when earlier keys were lost', async () => {
    const taskId = await task();
    await run(taskId, {
      status: 'queued',
      key: null,
      history: ['agent:main:subagent:run-abc'],
      retry: 3,
      createdAt: '2026-11-01T07:00:00Z',
    });
    await run(taskId, {
      status: 'queued',
      key: null,
      history: ['agent:writer:subagent:a', 'agent:writer:subagent:xyz'],
      retry: 2,
      createdAt: '2026-11-01T06:00:00Z',
    });
    const res = await app.http('GET', `/api/tasks/${taskId}/sessions`);
    const [cycled, kept] = res.body.sessions;
    expect(cycled).toMatchObject({
      liveness: 'live',
      sessionKey: 'agent:main:subagent:run-abc',
      sessionId: 'sess-sub-1',
      sessionActive: false,
      retryCount: 3,
      retryCycled: true,
    });
    expect(cycled.deepLink).toEqual({ view: 'session-replay', params: { sessionId: 'sess-sub-1', agentId: 'main' } });
    expect(kept).toMatchObject({ agentId: 'writer', sessionId: 'sess-writer-1', retryCount: 2, retryCycled: false });
  });

  it('returns at most the 20 most recent runs', async () => {
    const taskId = await task();
    for (let i = 0; i < 23; i++) {
      await run(taskId, { status: 'completed', createdAt: new Date(Date.parse('2026-10-01T00:00:00Z') + i * 60_000).toISOString() });
    }
    const res = await app.http('GET', `/api/tasks/${taskId}/sessions`);
    expect(res.body.sessions).toHaveLength(20);
    const { rows } = await app.db.query<{ id: string }>(
      'SELECT id FROM workflow_runs WHERE task_id = $1 ORDER BY created_at DESC LIMIT 20',
      [taskId],
    );
    expect(res.body.sessions.map((s: { runId: string }) => s.runId)).toEqual(rows.map((r) => r.id));
  });

  it('answers an empty list for a task without runs, 404 for an unknown task and 400 for a malformed id', async () => {
    const taskId = await task();
    expect((await app.http('GET', `/api/tasks/${taskId}/sessions`)).body).toEqual({ taskId, sessions: [] });
    const unknown = await app.http('GET', `/api/tasks/${randomUUID()}/sessions`);
    expect(unknown.status).toBe(404);
    expect(typeof unknown.body.error).toBe('string');
    expect((await app.http('GET', '/api/tasks/not-a-uuid/sessions')).status).toBe(400);
  });
});

describe('GET /api/tasks/:id/sessions without storage', () => {
  it('answers 503 {error} naming that storage is not initialized (fallback mode)', async () => {
    const storage = app.ctx.deps.storage;
    app.ctx.deps.storage = {
      mode: 'fallback',
      fallback: { savedAt: null, projects: [], tasks: [] },
      label: 'fallback file',
      reason: 'database unreachable',
    };
    try {
      const res = await app.http('GET', `/api/tasks/${randomUUID()}/sessions`);
      expect(res.status).toBe(503);
      expect(res.body.error).toMatch(/storage not initialized/);
      const chat = await app.http('GET', '/api/agent/chat/history');
      expect(chat.status).toBe(503);
    } finally {
      app.ctx.deps.storage = storage;
    }
  });
});
