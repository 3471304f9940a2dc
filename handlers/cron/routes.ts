import * as z from 'zod';
import { agentRead } from '../../core/auth/agent-rules';
import { jobRunsQuerySchema } from '../../core/runtime/scheduled-jobs';
import { anyObject, scheduledJobsSchema } from '../openapi/report-schemas';
import type { Route } from '../route';

const jobRunsSchema = z.object({ jobId: z.string(), runs: z.array(anyObject) });
const jobStartedSchema = z.object({ success: z.literal(true), message: z.string(), data: z.unknown() });
const jobToggledSchema = z.object({ success: z.literal(true), data: z.unknown() });
const jobWrittenSchema = z.object({ success: z.literal(true), id: z.string() });

/** A deleted job: spec 01's answer for a legacy file; `legacy: false` when the runtime's scheduler removed it (`cron rm`). */
const jobDeletedSchema = jobWrittenSchema.extend({ legacy: z.literal(false).optional() });

/** A job created through the released runtime's `cron add` carries the runtime's id, its name, and the job as listed (spec 01's answer for a legacy file). */
const jobCreatedSchema = z.object({
  success: z.literal(true),
  id: z.string(),
  legacy: z.literal(false).optional(),
  name: z.string().optional(),
  job: z.looseObject({ id: z.string(), name: z.string(), enabled: z.boolean(), legacy: z.literal(false) }).optional(),
});

/**
 * Scheduled jobs (spec 01). GET /api/cron-admin/jobs is not here: the cron-manager server
 * (infra/cron-manager) serves it on its own port.
 */
export const routes: readonly Route[] = [
  { method: 'GET', path: '/api/cron/jobs', handler: 'cron/list-cron-jobs', agent: agentRead, response: scheduledJobsSchema },
  { method: 'POST', path: '/api/cron/jobs', handler: 'cron/create-cron-job', success: [201], response: jobCreatedSchema },
  { method: 'DELETE', path: '/api/cron/jobs/:id', handler: 'cron/delete-cron-job', response: jobDeletedSchema },
  { method: 'GET', path: '/api/cron/jobs/:id/runs', handler: 'cron/list-job-runs', query: jobRunsQuerySchema, response: jobRunsSchema },
  { method: 'POST', path: '/api/cron/jobs/:id/run', handler: 'cron/run-cron-job', success: [202], response: jobStartedSchema },
  { method: 'POST', path: '/api/cron/jobs/:id/enable', handler: 'cron/enable-cron-job', response: jobToggledSchema },
  { method: 'POST', path: '/api/cron/jobs/:id/disable', handler: 'cron/disable-cron-job', response: jobToggledSchema },
];
