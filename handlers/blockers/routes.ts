import * as z from 'zod';
import { agentRead } from '../../core/auth/agent-rules';
import { blockerSchema } from '../../core/workflows/blockers';
import type { Route } from '../route';

const blockerSummarySchema = z.object({
  total: z.number().int(),
  byType: z.array(z.object({ blockerType: z.string(), count: z.number().int(), severity: z.enum(['low', 'medium', 'high']) })),
});

/** Blockers (spec 03). */
export const routes: readonly Route[] = [
  { method: 'GET', path: '/api/blockers', handler: 'blockers/list-blockers', response: z.object({ blockers: z.array(blockerSchema) }) },
  {
    method: 'GET',
    path: '/api/blockers/summary',
    handler: 'blockers/get-blocker-summary',
    agent: agentRead,
    response: blockerSummarySchema,
  },
];
