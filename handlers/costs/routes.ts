import * as z from 'zod';
import { agentRead } from '../../core/auth/agent-rules';
import { priceTableAnswerSchema, putPriceTableSchema } from '../../core/costs/price-book';
import { repriceAnswerSchema, repriceSchema } from '../../core/costs/reprice';
import { costRollupQuerySchema } from '../../core/costs/rollup';
import { costSummaryQuerySchema } from '../../core/costs/summary';
import { rebuildUsageSchema } from '../../core/costs/usage-rollup';
import { anyObject, unpricedRunSchema } from '../openapi/report-schemas';
import type { Route } from '../route';

const costSummarySchema = z.looseObject({
  available: z.literal(true),
  window_days: z.number().int(),
  currency: z.literal('USD'),
  today: z.object({ cost: z.number(), tokens: z.unknown(), runs: z.number().int() }),
  days: z.array(z.looseObject({ date: z.string(), cost: z.number(), runs: z.number().int() })),
  avg_daily_7d: z.number(),
  total_window: z.number(),
  subscription_cost: z.number(),
  unpriced_runs: z.number().int(),
  unpriced_tokens: z.object({ input: z.number(), output: z.number() }),
  top_run: anyObject.nullable(),
  timestamp: z.string(),
});

const costRollupSchema = z.looseObject({
  available: z.literal(true),
  group_by: z.string(),
  window_days: z.number().int(),
  currency: z.literal('USD'),
  group_count: z.number().int(),
  groups: z.array(
    z.object({
      key: z.string(),
      cost: z.number(),
      runs: z.number().int(),
      tokens: z.object({ input: z.number(), output: z.number() }),
      series: z.array(z.object({ date: z.string(), cost: z.number() })),
    }),
  ),
  total_window: z.number(),
  subscription_cost: z.number(),
  unpriced_runs: z.number().int(),
  unpriced_tokens: z.object({ input: z.number(), output: z.number() }),
  unpriced_run_list: z.array(unpricedRunSchema),
  timestamp: z.string(),
});

/** Cost analytics and model prices (spec 02). */
export const routes: readonly Route[] = [
  {
    method: 'GET',
    path: '/api/costs/summary',
    handler: 'costs/get-cost-summary',
    agent: agentRead,
    query: costSummaryQuerySchema,
    response: costSummarySchema,
    degrades: true,
  },
  {
    method: 'GET',
    path: '/api/costs/rollup',
    handler: 'costs/get-cost-rollup',
    agent: agentRead,
    query: costRollupQuerySchema,
    response: costRollupSchema,
    degrades: true,
  },
  { method: 'GET', path: '/api/costs/prices', handler: 'costs/get-model-prices', response: priceTableAnswerSchema },
  {
    method: 'PUT',
    path: '/api/costs/prices',
    handler: 'costs/put-model-prices',
    body: putPriceTableSchema,
    response: priceTableAnswerSchema,
  },
  { method: 'POST', path: '/api/costs/reprice', handler: 'costs/reprice-runs', body: repriceSchema, response: repriceAnswerSchema },
  {
    method: 'POST',
    path: '/api/costs/rebuild',
    handler: 'costs/rebuild-usage-rollup',
    body: rebuildUsageSchema,
    response: z.object({ rows: z.number().int(), runs: z.number().int(), rebuilt_at: z.string() }),
  },
];
