import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/use-app';

const app = useTestApp();

describe('GET /api/org/summary', () => {
  it('is empty but well-formed with no departments', async () => {
    const res = await app.call('GET', '/api/org/summary');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ departments: [], totals: { departments: 0, agents: 0, open_tasks: 0, active_runs: 0 } });
  });

  it('lists departments with their agents, open tasks and active runs (paused ones included), and groups agents without a department', async () => {
    await app.db.query(`INSERT INTO departments (id, name) VALUES ('eng', 'Engineering'), ('ops', 'Operations')`);
    await app.db.query(
      `INSERT INTO agent_profiles (agent_id, display_name, role, department_id, model) VALUES
        ('coder', 'Coder', 'builder', 'eng', 'm1'), ('tester', NULL, 'qa', 'eng', NULL), ('pager', 'Pager', 'oncall', 'ops', NULL), ('drifter', NULL, NULL, NULL, NULL)`,
    );
    const project = (await app.call('POST', '/api/projects', { body: { name: 'Org' } })).body.id;
    const mk = (owner: string, status: string) =>
      app.call('POST', '/api/tasks', { body: { project_id: project, title: 't', owner, status } });
    await mk('coder', 'ready');
    await mk('coder', 'in_progress');
    await mk('coder', 'completed');
    const archived = (await mk('coder', 'ready')).body.id;
    await app.call('POST', `/api/tasks/${archived}/archive`);
    await mk('drifter', 'blocked');
    await app.db.query(
      `INSERT INTO workflow_runs (id, workflow_type, status, target_agent_id, owner_agent_id) VALUES
        (gen_random_uuid(), 'x', 'running', 'tester', NULL), (gen_random_uuid(), 'x', 'queued', NULL, 'tester'),
        (gen_random_uuid(), 'x', 'completed', 'tester', NULL), (gen_random_uuid(), 'x', 'waiting_for_approval', 'pager', NULL),
        (gen_random_uuid(), 'x', 'paused', 'pager', NULL), (gen_random_uuid(), 'x', 'cancelled', 'pager', NULL)`,
    );
    const res = await app.call('GET', '/api/org/summary');
    expect(res.body.totals).toEqual({ departments: 2, agents: 4, open_tasks: 3, active_runs: 4 });
    const [eng, ops, loose] = res.body.departments;
    expect(eng).toMatchObject({ id: 'eng', name: 'Engineering', agent_count: 2, open_tasks: 2, active_runs: 2 });
    expect(eng.agents).toEqual([
      { agent_id: 'coder', display_name: 'Coder', role: 'builder', model: 'm1', open_tasks: 2, active_runs: 0 },
      { agent_id: 'tester', display_name: 'tester', role: 'qa', model: null, open_tasks: 0, active_runs: 2 },
    ]);
    // a paused run has not ended: it counts as active (docs/api/tasks-views-agents.md); a cancelled one does not
    expect(ops).toMatchObject({ id: 'ops', open_tasks: 0, active_runs: 2 });
    expect(loose).toMatchObject({ id: null, name: 'Unassigned', agent_count: 1, open_tasks: 1 });
  });
});
