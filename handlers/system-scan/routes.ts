import * as z from 'zod';
import type { Route } from '../route';

const systemScanSchema = z.object({ workflowRunId: z.string(), status: z.string(), message: z.string() });
const scanFollowUpSchema = z.object({
  run_id: z.string(),
  session_key: z.string(),
  delivered: z.literal(true),
  reply: z.string().nullable(),
});

/** System scans (spec 03). */
export const routes: readonly Route[] = [
  { method: 'POST', path: '/api/system-scan/run', handler: 'system-scan/run-system-scan', success: [201], response: systemScanSchema },
  { method: 'POST', path: '/api/system-scan/followup', handler: 'system-scan/send-system-scan-followup', response: scanFollowUpSchema },
];
