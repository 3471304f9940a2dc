import type { Deps } from '../ports';
import { requireDb } from '../storage';
import { closedTaskStatuses } from '../tasks/task';
import { activeRunStatuses } from '../workflows/run-status';

interface AgentRow {
  agent_id: string;
  display_name: string | null;
  role: string | null;
  model: string | null;
  department_id: string | null;
  open_tasks: number;
  active_runs: number;
}

/**
 * GET /api/org/summary (polled by the desktop shell): departments with their agents (from agent
 * profiles), each agent's open tasks (owned, live, not archived, not in a closed status) and
 * active workflow runs (targeted at it, or owned by it when no target is set), summed per
 * department. Agents without a department are grouped under `unassigned` (id null) when any exist.
 */
export async function getOrgSummary(deps: Pick<Deps, 'storage' | 'clock'>) {
  const db = requireDb(deps.storage);
  const [departments, agents] = await Promise.all([
    db.query<{ id: string; name: string; description: string }>('SELECT id, name, description FROM departments ORDER BY name, id'),
    db.query<AgentRow>(
      `SELECT a.agent_id, a.display_name, a.role, a.model, a.department_id,
              coalesce(t.n, 0)::int AS open_tasks, coalesce(r.n, 0)::int AS active_runs
         FROM agent_profiles a
         LEFT JOIN (SELECT owner, count(*) AS n FROM tasks
                     WHERE deleted_at IS NULL AND archived_at IS NULL AND NOT (status = ANY($1::text[])) GROUP BY owner) t ON t.owner = a.agent_id
         LEFT JOIN (SELECT coalesce(target_agent_id, owner_agent_id) AS agent, count(*) AS n FROM workflow_runs
                     WHERE status = ANY($2::text[]) GROUP BY 1) r ON r.agent = a.agent_id
        ORDER BY a.agent_id`,
      [[...closedTaskStatuses], activeRunStatuses],
    ),
  ]);
  const shape = (a: AgentRow) => ({
    agent_id: a.agent_id,
    display_name: a.display_name ?? a.agent_id,
    role: a.role,
    model: a.model,
    open_tasks: a.open_tasks,
    active_runs: a.active_runs,
  });
  const groups: Array<{ id: string | null; name: string; description: string; members: AgentRow[] }> = departments.rows.map((d) => ({
    ...d,
    members: agents.rows.filter((a) => a.department_id === d.id),
  }));
  const known = new Set(departments.rows.map((d) => d.id));
  const loose = agents.rows.filter((a) => !a.department_id || !known.has(a.department_id));
  if (loose.length) groups.push({ id: null, name: 'Unassigned', description: 'agents without a department', members: loose });
  const result = groups.map(({ members, ...d }) => ({
    ...d,
    agent_count: members.length,
    open_tasks: members.reduce((n, a) => n + a.open_tasks, 0),
    active_runs: members.reduce((n, a) => n + a.active_runs, 0),
    agents: members.map(shape),
  }));
  return {
    departments: result,
    totals: {
      departments: departments.rows.length,
      agents: agents.rows.length,
      open_tasks: result.reduce((n, d) => n + d.open_tasks, 0),
      active_runs: result.reduce((n, d) => n + d.active_runs, 0),
    },
    generated_at: deps.clock.now(),
  };
}
