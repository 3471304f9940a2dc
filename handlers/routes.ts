/**
 * The route table: the one list of every endpoint. It feeds the local runner, the Lambda
 * bundles and serverless.yml (esbuild.config.mjs), GET /api/routes and the auth check.
 * Each group lives in handlers/route-table/<group>.ts. Pure data: importing it loads no handler.
 */
import { costRoutes } from './route-table/costs';
import { foundationRoutes } from './route-table/foundation';
import type { Route } from './route-table/route';
import { runtimeRoutes } from './route-table/runtime';
import { snapshotRoutes } from './route-table/snapshots';
import { streamRoutes } from './route-table/streams';
import { taskRoutes } from './route-table/tasks';
import { webhookRoutes } from './route-table/webhooks';
import { workflowRoutes } from './route-table/workflows';

export type { HttpMethod, Route } from './route-table/route';

export const routes: readonly Route[] = [
  ...foundationRoutes,
  ...taskRoutes,
  ...workflowRoutes,
  ...costRoutes,
  ...snapshotRoutes,
  ...runtimeRoutes,
  ...streamRoutes,
  ...webhookRoutes,
];

/** `GET /api/projects/{id}`: the API Gateway route key of a route. */
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

const byRouteKey = new Map(routes.map((r) => [routeKeyOf(r), r]));

export function routeByKey(routeKey: string | undefined): Route | undefined {
  return routeKey ? byRouteKey.get(routeKey) : undefined;
}

export const publicPaths: string[] = [...new Set(routes.filter((r) => r.public).map((r) => r.path))];
