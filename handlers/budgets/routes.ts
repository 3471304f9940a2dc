import * as z from 'zod';
import { agentRead } from '../../core/auth/agent-rules';
import { budgetRowSchema, createBudgetSchema, updateBudgetSchema } from '../../core/budgets/budget';
import { burnDownsAnswerSchema } from '../../core/budgets/burn-down';
import { budgetAnswerSchema } from '../../core/budgets/commands';
import { budgetViewSchema } from '../../core/budgets/evaluation';
import { ledgerQuerySchema } from '../../core/budgets/queries';
import { spendSchema } from '../../core/budgets/status';
import { anyObject, unpricedRunSchema } from '../openapi/report-schemas';
import type { Route } from '../route';

const budgetLedgerSchema = z.object({
  available: z.literal(true),
  budget: budgetRowSchema.omit({ created_at: true, updated_at: true }),
  period_key: z.string(),
  window_start: z.string(),
  window_end: z.string(),
  spend: spendSchema,
  pct_of_cap: z.number(),
  status: z.string(),
  events: z.array(anyObject),
  unpriced_runs: z.array(unpricedRunSchema),
  timestamp: z.string(),
});

/** Budgets (spec 02). */
export const routes: readonly Route[] = [
  {
    method: 'GET',
    path: '/api/budgets',
    handler: 'budgets/list-budgets',
    agent: agentRead,
    response: z.object({ available: z.literal(true), budgets: z.array(budgetViewSchema), timestamp: z.string() }),
    degrades: true,
  },
  {
    method: 'POST',
    path: '/api/budgets',
    handler: 'budgets/create-budget',
    success: [201],
    body: createBudgetSchema,
    response: budgetAnswerSchema,
    degrades: true,
  },
  {
    method: 'PATCH',
    path: '/api/budgets/:id',
    handler: 'budgets/update-budget',
    body: updateBudgetSchema,
    response: budgetAnswerSchema,
    degrades: true,
  },
  {
    method: 'GET',
    path: '/api/budgets/:id/ledger',
    handler: 'budgets/get-budget-ledger',
    agent: agentRead,
    query: ledgerQuerySchema,
    response: budgetLedgerSchema,
    degrades: true,
  },

  // the console's Costs screen: every budget's burn-down in one request
  {
    method: 'GET',
    path: '/api/budgets/burn-down',
    handler: 'budgets/get-budget-burn-downs',
    response: burnDownsAnswerSchema,
    degrades: true,
  },
];
