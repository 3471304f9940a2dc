import type { AgentRouteRule } from '../../core/auth/agent-rules';

/** One row of the route table (see handlers/routes.ts). */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Route {
  method: HttpMethod;
  /** Express-style parameters (`:id`); API Gateway's `{id}` form is derived. */
  path: string;
  /** Names the module handlers/<handler>.ts, which exports `handler`. */
  handler: string;
  /** Reachable without the bearer token (spec 01 Authentication 3). Only /api/health and /api/auth/self. */
  public?: boolean;
  /** Served only by the long-lived runner (streams); absent from Lambda and serverless.yml. */
  runnerOnly?: boolean;
  /** Takes bodies up to RESTORE_MAX_BYTES instead of 1 MB (restore, import). */
  largeBody?: boolean;
  /**
   * What an agent token may do here (core/auth/agent-access.ts: its scope, and how the agent's
   * identity binds into the request); absent, the route is the operator's and an agent token gets 403.
   */
  agent?: AgentRouteRule;
}
