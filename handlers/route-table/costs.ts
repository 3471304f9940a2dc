import type { Route } from './route';

/** Cost analytics, budgets, governed actions (spec 02). */
export const costRoutes: readonly Route[] = [];
