import type * as z from 'zod';
import type { AgentRouteRule } from '../core/auth/agent-rules';

/** One row of the route table (handlers/<area>/routes.ts, all of them in handlers/routes.ts). */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Route {
  method: HttpMethod;
  /** Express-style parameters (`:id`); API Gateway's `{id}` form is derived. */
  path: string;
  /** Names the module handlers/<handler>.ts, which exports `handler`; its first part is the Lambda area. */
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
  /**
   * The 2xx (and 3xx) statuses the handler answers; 200 when not given. A handler that answers
   * without naming a status answers the first (handlers/middleware/responses.ts); a route with two
   * names the one it answers each time.
   */
  success?: readonly number[];
  /** The query the use case parses with (the OpenAPI document's query parameters). */
  query?: z.ZodType;
  /** The body the use case parses with. */
  body?: z.ZodType;
  /** The success body, where core has a schema for it: one for every success status, or one per status. */
  response?: z.ZodType | Readonly<Record<number, z.ZodType>>;
  /** The success body's media type when it is not JSON (metrics, event streams, CSV). */
  contentType?: string;
  /** Spec 02's degraded answer: 200 `{available: false, reason}` when the data is not there (core/costs/availability.ts). */
  degrades?: boolean;
}

const routeKeys = new WeakMap<object, string>();

/** `GET /api/tasks/{id}`: API Gateway's route key. Remembered per route object: the runner asks on every request. */
export function routeKeyOf(route: Pick<Route, 'method' | 'path'>): string {
  let key = routeKeys.get(route);
  if (key === undefined) {
    key = `${route.method} ${route.path.replace(/:([A-Za-z][A-Za-z0-9_]*)/g, '{$1}')}`;
    routeKeys.set(route, key);
  }
  return key;
}

/** The status a handler answers when it names none: the row's first success status. */
export function defaultSuccessOf(route: Pick<Route, 'success'> | undefined): number {
  return route?.success?.[0] ?? 200;
}

/** Every status below 400 the route may answer: its success statuses, and 200 where it degrades. */
export function successStatusesOf(route: Pick<Route, 'success' | 'degrades'>): number[] {
  return [...new Set([...(route.success ?? [200]), ...(route.degrades ? [200] : [])])].sort((a, b) => a - b);
}
