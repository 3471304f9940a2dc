/**
 * The route table: the one list of every endpoint. It feeds the local runner, the Lambda
 * bundles and serverless.yml (esbuild.config.mjs), GET /api/routes and the auth check.
 * `handler` names the module handlers/<handler>.ts, which exports `handler`.
 * Pure data: importing it loads no handler.
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Route {
  method: HttpMethod;
  /** Express-style parameters (`:id`); API Gateway's `{id}` form is derived. */
  path: string;
  handler: string;
  /** Reachable without the bearer token (spec 01 Authentication 3). */
  public?: boolean;
  /** Served only by the long-lived runner (streams); absent from Lambda. */
  runnerOnly?: boolean;
  /** Takes bodies up to RESTORE_MAX_BYTES instead of 1 MB (restore, import). */
  largeBody?: boolean;
}

export const routes: readonly Route[] = [
  { method: 'GET', path: '/api/health', handler: 'health/get-health', public: true },
  { method: 'GET', path: '/api/auth/self', handler: 'auth/get-auth-self', public: true },
  { method: 'GET', path: '/api/stats', handler: 'health/get-stats' },
  { method: 'GET', path: '/api/health-status', handler: 'health/get-health-status' },
  { method: 'GET', path: '/api/routes', handler: 'health/list-routes' },

  { method: 'GET', path: '/api/projects', handler: 'projects/list-projects' },
  { method: 'POST', path: '/api/projects', handler: 'projects/create-project' },
  { method: 'GET', path: '/api/projects/default', handler: 'projects/get-default-project' },
  { method: 'GET', path: '/api/projects/:id', handler: 'projects/get-project' },
  { method: 'PATCH', path: '/api/projects/:id', handler: 'projects/update-project' },
  { method: 'DELETE', path: '/api/projects/:id', handler: 'projects/delete-project' },
];

/** `GET /api/projects/{id}`: the API Gateway route key of a route. */
export function routeKeyOf(route: Pick<Route, 'method' | 'path'>): string {
  return `${route.method} ${route.path.replace(/:([A-Za-z][A-Za-z0-9_]*)/g, '{$1}')}`;
}

const byRouteKey = new Map(routes.map((r) => [routeKeyOf(r), r]));

export function routeByKey(routeKey: string | undefined): Route | undefined {
  return routeKey ? byRouteKey.get(routeKey) : undefined;
}

export const publicPaths: string[] = [...new Set(routes.filter((r) => r.public).map((r) => r.path))];
