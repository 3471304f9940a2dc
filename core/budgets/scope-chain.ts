import type { Db } from '../ports';
import type { BudgetRow, Expectation } from './budget';
import { inFlightStatuses } from './spend';

/**
 * The budget scopes a run falls under, the chain the dispatcher enforces (spec 02): its agent,
 * the agent's department, its task's project, and the fleet. A run may name two agents (owner and
 * target); a budget of either applies.
 */
export interface ScopeChain {
  agents: readonly string[];
  departmentId: string | null;
  projectId: string | null;
}

export function budgetInChain(budget: Pick<BudgetRow, 'scope' | 'scope_id'>, chain: ScopeChain): boolean {
  switch (budget.scope) {
    case 'fleet':
      return true;
    case 'agent':
      return budget.scope_id !== null && chain.agents.includes(budget.scope_id);
    case 'department':
      return budget.scope_id !== null && budget.scope_id === chain.departmentId;
    case 'project':
      return budget.scope_id !== null && budget.scope_id === chain.projectId;
  }
}

function chainOf(row: { owner: string | null; target: string | null; department: string | null; project: string | null }): ScopeChain {
  return {
    agents: [...new Set([row.owner, row.target].filter((a): a is string => !!a))],
    departmentId: row.department,
    projectId: row.project,
  };
}

/** The chain of an existing run (redispatch): agents, the department of its agent's profile (else its template's), its task's project. */
export async function scopeChainOfRun(db: Db, runId: string): Promise<ScopeChain | undefined> {
  const { rows } = await db.query<{ owner: string | null; target: string | null; department: string | null; project: string | null }>(
    `SELECT r.owner_agent_id AS owner, r.target_agent_id AS target, coalesce(ap.department_id, wt.department_id) AS department,
            t.project_id::text AS project
       FROM workflow_runs r
       LEFT JOIN agent_profiles ap ON ap.agent_id = coalesce(r.owner_agent_id, r.target_agent_id)
       LEFT JOIN workflow_templates wt ON wt.name = r.workflow_type
       LEFT JOIN tasks t ON t.id = r.task_id
      WHERE r.id = $1`,
    [runId],
  );
  return rows[0] && chainOf(rows[0]);
}

/**
 * The chain of a run about to be created for a task from a template (run.dispatch): the agent the
 * template routes to (else the task's owner), that agent's department (else the template's), the task's project.
 */
export async function scopeChainOfDispatch(db: Db, taskId: string, template: string): Promise<ScopeChain | undefined> {
  const { rows } = await db.query<{ owner: string | null; target: string | null; department: string | null; project: string | null }>(
    `SELECT t.owner AS owner, war.agent_id AS target, coalesce(ap.department_id, wt.department_id) AS department, t.project_id::text AS project
       FROM tasks t
       LEFT JOIN workflow_agent_routing war ON war.workflow_type = $2
       LEFT JOIN workflow_templates wt ON wt.name = $2
       LEFT JOIN agent_profiles ap ON ap.agent_id = coalesce(war.agent_id, t.owner)
      WHERE t.id = $1`,
    [taskId, template],
  );
  return rows[0] && chainOf(rows[0]);
}

/**
 * What the run a dispatch-class action would put in the queue expects to spend: its
 * route's expectation. A run that is live already reserves it, so redispatching one expects nothing more.
 */
export async function expectationOfDispatch(
  db: Db,
  kind: 'run.dispatch' | 'run.redispatch',
  target: string,
  template: string,
): Promise<Expectation> {
  const { rows } = await db.query<Required<Expectation>>(
    kind === 'run.dispatch'
      ? `SELECT w.expected_cost_usd AS usd, w.expected_tokens AS tokens, coalesce(ap.billing = 'subscription', false) AS subscription
           FROM workflow_agent_routing w LEFT JOIN agent_profiles ap ON ap.agent_id = w.agent_id WHERE w.workflow_type = $1`
      : `SELECT w.expected_cost_usd AS usd, w.expected_tokens AS tokens, coalesce(ap.billing = 'subscription', false) AS subscription
           FROM workflow_runs r JOIN workflow_agent_routing w ON w.workflow_type = r.workflow_type
           LEFT JOIN agent_profiles ap ON ap.agent_id = coalesce(r.owner_agent_id, w.agent_id)
          WHERE r.id::text = $1 AND r.status <> ALL($2::text[])`,
    kind === 'run.dispatch' ? [template] : [target, inFlightStatuses],
  );
  return rows[0] ?? { usd: null, tokens: null };
}
