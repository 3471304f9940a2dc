import { ForbiddenError } from '../errors';
import type { Db } from '../ports';
import { uuidSchema } from '../validation';
import type { AgentRouteRule } from './agent-rules';
import type { Principal } from './principal';

export interface AgentRequest {
  /** Names the route in refusals (`POST /api/tasks`). */
  routeKey: string;
  /** The route row's rule; undefined: the route is the operator's. */
  rule: AgentRouteRule | undefined;
  pathParameters: Readonly<Record<string, string | undefined>>;
  body: unknown;
}

/**
 * Applies a route's rule to a request of an agent principal: refuses (ForbiddenError) what the
 * agent may not do, and answers the body with its identity bound (actor and self fields set to
 * the agent). A body that is not an object is passed on unchanged for the handler to refuse.
 * The run check reads the run outside the handler's transaction: a run's target changes only by
 * the operator (redispatch, reassign), so the check cannot be raced by another agent.
 */
export async function authorizeAgentRequest(
  db: Db,
  principal: Extract<Principal, { kind: 'agent' }>,
  request: AgentRequest,
): Promise<unknown> {
  const { rule } = request;
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
  const fields =
    body === undefined || body === null
      ? {}
      : typeof body === 'object' && !Array.isArray(body)
        ? (body as Record<string, unknown>)
        : undefined;
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
    throw new ForbiddenError(
      `task ${taskId} is owned by another agent: agent ${agent} may claim only its own tasks and tasks without an owner`,
    );
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
