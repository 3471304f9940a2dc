/**
 * The rows this process serves, by route key: what the middy stack reads of a request's row (its
 * `public` flag, its `agent` rule, its success status). Filled by whoever invokes handlers, with
 * only the rows it needs: handlers/routes.ts registers the whole table (the runner, the tests), a
 * Lambda area bundle its own area's rows (infra/lambda/area-router.ts), so no bundle carries every
 * row's schemas. A route key nobody registered is never public and has no agent rule.
 */
import { routeKeyOf, type Route } from './route';

const byRouteKey = new Map<string, Route>();

/** Adds rows (a row of the same route key replaces the one before, in its place). */
export function registerRoutes(rows: readonly Route[]): void {
  for (const row of rows) byRouteKey.set(routeKeyOf(row), row);
}

export function routeByKey(routeKey: string | undefined): Route | undefined {
  return routeKey ? byRouteKey.get(routeKey) : undefined;
}

/** The paths served without a token, in the order they were registered (GET /api/auth/self lists them). */
export function publicPaths(): string[] {
  return [...new Set([...byRouteKey.values()].filter((r) => r.public).map((r) => r.path))];
}
