import type { AgentTokenScope } from './principal';

/**
 * What a request with an agent token may do, as data: each route row that an agent may use carries
 * its rule (`agent` in handlers/<area>/routes.ts); a route without one is the operator's alone
 * (tokens, settings, snapshots, restore, budgets, routing, governance, imports…), and an agent
 * token gets 403 there. The operator token is never checked against a rule.
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

/** A read an agent needs to find and follow its own work (what the MCP read tools read): either scope. */
export const agentRead: AgentRouteRule = { scope: 'read' };
/** Work on a run targeted at or held by the agent, the agent its actor. */
export const agentRunWork: AgentRouteRule = { scope: 'agent', ownRun: 'id', actor: ['actor'] };
