import * as z from 'zod';
import { anyObject } from '../openapi/report-schemas';
import type { Route } from '../route';

const orgSummarySchema = z.object({
  departments: z.array(anyObject),
  totals: z.object({
    departments: z.number().int(),
    agents: z.number().int(),
    open_tasks: z.number().int(),
    active_runs: z.number().int(),
  }),
  generated_at: z.date(),
});

/** The org summary (spec 01). */
export const routes: readonly Route[] = [
  { method: 'GET', path: '/api/org/summary', handler: 'org/get-org-summary', response: orgSummarySchema },
];
