import * as z from 'zod';
import type { Route } from '../route';

const citationQueueSchema = z.object({
  success: z.boolean(),
  pending: z.number().int(),
  total: z.number().int(),
  timestamp: z.string(),
  error: z.string().optional(),
});

/** The citation queue (spec 01). */
export const routes: readonly Route[] = [
  { method: 'GET', path: '/api/citation-queue/status', handler: 'citation-queue/get-citation-status', response: citationQueueSchema },
];
