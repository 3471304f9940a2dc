import { ForbiddenError } from '../errors';
import type { Db } from '../ports';
import { uuidSchema } from '../validation';
import type { AgentTokenScope, Principal } from './principal';

/**
 * What a request with an agent token may do, as data: the routes an agent may use, by
 * API Gateway route key, and how its identity binds in each. A route that is not listed is the
 * operator's alone (tokens, settings, snapshots, restore, budgets, routing, governance, imports…):
 * an agent token gets 403. The operator token is never checked against this table.
 */
export interface AgentRouteRule {
  /** The scope a token needs: `read` routes take either scope, `agent` routes the agent scope. */
  scope: AgentTokenScope;
  /** Body fields set to the agent's id whatever the body says: the actor of the change. */
  actor?: readonly string[];
  /** Body fields that name an agent: absent, they are filled with the agent's id; another agent is 403. */
  self?: readonly string[];
  /** A path parameter that names an agent: it must be the token's agent. */
  selfParam?: string;
  /** The path parameter holding a run id: the run must be targeted at or held (owned) by the agent. */
  ownRun?: string;
  /** The body field holding a task id: the task must be owned by the agent or by no one. */
  ownTask?: string;
  /** Body fields the agent must send (an agent starts only a run it holds, by its session). */
  required?: readonly string[];
}

const read: AgentRouteRule = { scope: 'read' };
const runWork: AgentRouteRule = { scope: 'agent', ownRun: 'id', actor: ['actor'] };

export const agentRouteRules: Readonly<Record<string, AgentRouteRule>> = {
  // what the MCP read tools read, and what an agent needs to find and follow its own work
  'GET /api/tasks': read,
  'GET /api/tasks/all': read,
  'GET /api/tasks/{id}': read,
  'GET /api/projects': read,
  'GET /api/projects/default': read,
  'GET /api/projects/{id}': read,
  'GET /api/costs/summary': read,
  'GET /api/costs/rollup': read,
  'GET /api/budgets': read,
  'GET /api/budgets/{id}/ledger': read,
  'GET /api/snapshots': read,
  'GET /api/health-status': read,
  'GET /api/agents/status': read,
  'GET /api/agents/{agent}/limits': read,
  'GET /api/runtime/agents': read,
  'GET /api/blockers/summary': read,
  'GET /api/cron/jobs': read,
  'GET /api/audit': read,
  'GET /api/workflow-runs': read,
  'GET /api/workflow-runs/{id}': read,
  'GET /api/workflow-runs/pending': read,
  'GET /api/workflow-runs/active': read,
  'GET /api/workflow-runs/stuck': read,
  'GET /api/workflow-runs/dispatcher/stats': read,
  'GET /api/workflow-templates': read,
  'GET /api/workflow-templates/{name}': read,
  'GET /api/actions/catalog': read,
  'GET /api/openapi.json': read,
  'GET /api/routes': read,
  // the tool server reports its own telemetry whatever its token's scope
  'POST /api/mcp/telemetry': read,
  // its own work: runs targeted at or held by it, task claims in its name
  'GET /api/agents/{agent}/bridge': { scope: 'agent', selfParam: 'agent' },
  'POST /api/agents/heartbeat': { scope: 'agent', self: ['agent_name'] },
  'POST /api/agent/claim': { scope: 'agent', self: ['agent_name'], ownTask: 'task_id' },
  'POST /api/agent/claim/renew': { scope: 'agent', self: ['agent_name'] },
  'POST /api/agent/release': { scope: 'agent', self: ['agent_name'] },
  'POST /api/workflow-runs/{id}/claim': { scope: 'agent', ownRun: 'id', actor: ['actor'], self: ['agent_id'] },
  'POST /api/workflow-runs/{id}/start': { ...runWork, required: ['session_id'] },
  'POST /api/workflow-runs/{id}/heartbeat': runWork,
  'POST /api/workflow-runs/{id}/complete': runWork,
  'POST /api/workflow-runs/{id}/fail': runWork,
  'PATCH /api/workflow-runs/{id}': runWork,
  'PATCH /api/workflow-runs/{id}/steps/{stepOrder}': runWork,
  'POST /api/workflow-runs/{id}/artifacts': runWork,
  'POST /api/workflow-runs/{id}/approvals': runWork,
  // governed actions: the agent is the actor, so its profile decides (spec 03 rule 3)
  'POST /api/actions/execute': { scope: 'agent', actor: ['actor'] },
};

export interface AgentRequest {
  routeKey: string;
  pathParameters: Readonly<Record<string, string | undefined>>;
  body: unknown;
}

/**
 * Applies the table to a request of an agent principal: refuses (ForbiddenError) what the
 * agent may not do, and answers the body with its identity bound (actor and self fields set to
 * the agent). A body that is not an object is passed on unchanged for the handler to refuse.
 * The run check reads the run outside the handler's transaction: a run's target changes only by
 * the operator (redispatch, reassign), so the check cannot be raced by another agent.
 */
export async function authorizeAgentRequest(db: Db, principal: Extract<Principal, { kind: 'agent' }>, request: AgentRequest): Promise<unknown> {
  const rule = agentRouteRules[request.routeKey];
  const agent = principal.agentId;
  if (!rule) throw new ForbiddenError(`an agent token may not use ${request.routeKey}: it is the operator's`);
  if (rule.scope === 'agent' && !principal.scopes.includes('agent')) {
    throw new ForbiddenError(`this token's scopes (${principal.scopes.join(', ')}) do not include agent, which ${request.routeKey} needs`);
  }
  if (rule.selfParam && request.pathParameters[rule.selfParam] !== agent) {
    throw new ForbiddenError(`agent ${agent} may only use ${request.routeKey} for itself`);
  }
  let body = request.body;
  const binds = Boolean(rule.self?.length || rule.actor?.length || rule.required?.length);
  // no body binds as an empty one, so that defaults never fall back to the operator; any other non-object is the handler's to refuse
  const fields = body === undefined || body === null ? {} : typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  if (binds && fields) {
    const bound: Record<string, unknown> = { ...fields };
    for (const field of rule.self ?? []) {
      if (bound[field] !== undefined && bound[field] !== agent) {
        throw new ForbiddenError(`agent ${agent} may not act as ${String(bound[field])}: ${field} must be its own id`);
      }
      bound[field] = agent;
    }
    for (const field of rule.actor ?? []) bound[field] = agent;
    for (const field of rule.required ?? []) {
      if (bound[field] === undefined) throw new ForbiddenError(`an agent token must send ${field} to use ${request.routeKey}`);
    }
    body = bound;
  }
  if (rule.ownRun) await assertRunOfAgent(db, request.pathParameters[rule.ownRun], agent);
  if (rule.ownTask && fields) await assertTaskOpenToAgent(db, fields[rule.ownTask], agent);
  return body;
}

/**
 * A task owned by another agent is not this agent's to claim; one without an owner is anyone's.
 * Read outside the handler's transaction, as the run check is: a task's owner changes only by an
 * operator's edit, never by another agent's claim.
 */
async function assertTaskOpenToAgent(db: Db, taskId: unknown, agent: string): Promise<void> {
  // a missing or malformed id is the handler's to answer (400, 404), as for the operator
  if (!uuidSchema.safeParse(taskId).success) return;
  const { rows } = await db.query<{ owner: string | null }>('SELECT owner FROM tasks WHERE id = $1', [taskId]);
  const task = rows[0];
  if (task && task.owner !== null && task.owner !== agent) {
    throw new ForbiddenError(`task ${taskId} is owned by another agent: agent ${agent} may claim only its own tasks and tasks without an owner`);
  }
}

async function assertRunOfAgent(db: Db, runId: string | undefined, agent: string): Promise<void> {
  // a malformed or unknown id is the handler's to answer (400, 404), as for the operator
  if (!uuidSchema.safeParse(runId).success) return;
  const { rows } = await db.query<{ target_agent_id: string | null; owner_agent_id: string | null }>(
    'SELECT target_agent_id, owner_agent_id FROM workflow_runs WHERE id = $1',
    [runId],
  );
  const run = rows[0];
  if (run && run.target_agent_id !== agent && run.owner_agent_id !== agent) {
    throw new ForbiddenError(`workflow run ${runId} is not targeted at or held by agent ${agent}`);
  }
}
