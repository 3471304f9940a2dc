import { agentRead } from '../../core/auth/agent-rules';
import type { Route } from './route';

/** Cost analytics, budgets, governed actions (spec 02). */
export const costRoutes: readonly Route[] = [
  { method: 'GET', path: '/api/costs/summary', handler: 'costs/get-cost-summary', agent: agentRead },
  { method: 'GET', path: '/api/costs/rollup', handler: 'costs/get-cost-rollup', agent: agentRead },
  { method: 'GET', path: '/api/costs/prices', handler: 'costs/get-model-prices' },
  { method: 'PUT', path: '/api/costs/prices', handler: 'costs/put-model-prices' },
  { method: 'POST', path: '/api/costs/reprice', handler: 'costs/reprice-runs' },
  { method: 'POST', path: '/api/costs/rebuild', handler: 'costs/rebuild-usage-rollup' },

  { method: 'GET', path: '/api/budgets', handler: 'budgets/list-budgets', agent: agentRead },
  { method: 'POST', path: '/api/budgets', handler: 'budgets/create-budget' },
  { method: 'PATCH', path: '/api/budgets/:id', handler: 'budgets/update-budget' },
  { method: 'GET', path: '/api/budgets/:id/ledger', handler: 'budgets/get-budget-ledger', agent: agentRead },

  // the agent is the actor of its governed action, so its profile decides (spec 03 rule 3)
  { method: 'POST', path: '/api/actions/execute', handler: 'actions/execute-action', agent: { scope: 'agent', actor: ['actor'] } },
  { method: 'GET', path: '/api/actions/recent', handler: 'actions/list-recent-actions' },
  { method: 'GET', path: '/api/actions/catalog', handler: 'actions/get-action-catalog', agent: agentRead },

  // the console's Costs screen: every budget's burn-down in one request
  { method: 'GET', path: '/api/budgets/burn-down', handler: 'budgets/get-budget-burn-downs' },
];
