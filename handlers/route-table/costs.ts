import type { Route } from './route';

/** Cost analytics, budgets, governed actions (spec 02). */
export const costRoutes: readonly Route[] = [
  { method: 'GET', path: '/api/costs/summary', handler: 'costs/get-cost-summary' },
  { method: 'GET', path: '/api/costs/rollup', handler: 'costs/get-cost-rollup' },
];
