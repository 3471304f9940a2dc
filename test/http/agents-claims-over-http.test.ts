import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/use-app';

const app = useTestApp();

describe('agent claims over real HTTP', () => {
  it('many parallel claims of one task through the runner yield exactly one winner, and release frees it for the next', async () => {
    const project = (await app.http('POST', '/api/projects', { body: { name: 'Race' } })).body.id;
    const task = (await app.http('POST', '/api/tasks', { body: { project_id: project, title: 'contested' } })).body;
    for (let round = 0; round < 3; round++) {
      const results = await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          app.http('POST', '/api/agent/claim', { body: { task_id: task.id, agent_name: `r${round}-a${i}` } }),
        ),
      );
      const winners = results.filter((r) => r.status === 200);
      expect(winners).toHaveLength(1);
      expect(results.every((r) => r.status === 200 || r.status === 409)).toBe(true);
      const winner = winners[0]!.body.locked_by;
      expect((await app.http('GET', `/api/tasks/${task.id}`)).body.locked_by).toBe(winner);
      expect((await app.http('POST', '/api/agent/release', { body: { task_id: task.id, agent_name: winner } })).status).toBe(200);
    }
    const claims = await app.db.query(`SELECT count(*)::int AS n FROM audit_log WHERE task_id = $1 AND action = 'claimed'`, [task.id]);
    expect(claims.rows[0]).toEqual({ n: 3 });
  });

  it('serves the task lifecycle, views and liveness through the runner', async () => {
    const project = (await app.http('POST', '/api/projects', { body: { name: 'Lifecycle' } })).body.id;
    const created = await app.http('POST', '/api/tasks', {
      body: { project_id: project, title: 'over http', owner: 'runner-agent', status: 'ready' },
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect((await app.http('POST', `/api/tasks/${id}/move`, { body: { status: 'in_progress' } })).body.status).toBe('in_progress');
    const board = await app.http('GET', `/api/views/board?project_id=${project}`);
    expect(board.body.columns.in_progress.map((t: { id: string }) => t.id)).toEqual([id]);
    const queue = await app.http('GET', '/api/views/agent?agent=runner-agent');
    expect(queue.body.tasks.map((t: { id: string }) => t.id)).toEqual([id]);
    expect((await app.http('POST', '/api/agents/heartbeat', { body: { agent_name: 'runner-agent' } })).body).toEqual({ ok: true });
    expect((await app.http('GET', '/api/agents/status')).body.agents[0]).toMatchObject({ agent_name: 'runner-agent', status: 'online' });
    expect((await app.http('DELETE', `/api/tasks/${id}`)).body).toEqual({ deleted: true, id });
    expect((await app.http('GET', `/api/tasks/all?project_id=${project}`)).body).toEqual([]);
    const legacy = await app.http('POST', '/api/tasks', { body: { content: '- one' } });
    expect(legacy.status).toBe(200);
    expect((await app.http('GET', '/api/tasks')).body.content).toBe('- one');
  });
});
