import * as z from 'zod';
import { governanceActions } from '../../core/workflows/governance';
import { routeSchema } from '../../core/workflows/routing';
import { anyObject, runtimeHealthSchema, scheduledJobsSchema } from '../openapi/report-schemas';
import type { Route } from '../route';

const settingsSchema = z.object({
  settings: anyObject,
  environment: z.record(z.string(), z.object({ type: z.string(), set: z.boolean() })),
  schema: z.array(z.object({ key: z.string(), source: z.string(), type: z.string(), description: z.string() })),
  timestamp: z.string(),
});

const settingsOverviewSchema = z.object({
  server: z.object({
    version: z.string(),
    status: z.enum(['ok', 'degraded']),
    storage_mode: z.string(),
    storage_label: z.string(),
    storage_note: z.string().nullable(),
    db_latency_ms: z.number(),
    started_at: z.date(),
    uptime_seconds: z.number().int(),
    metrics_path: z.literal('/api/metrics'),
    openapi_path: z.literal('/api/openapi.json'),
  }),
  routing: z.array(routeSchema),
  governance: z.object({
    actions: z.array(
      z.object({ action: z.enum(governanceActions), label: z.string(), roles: z.array(z.string()), capabilities: z.array(z.string()) }),
    ),
    privileged_actors: z.array(z.string()),
    /** Regular expressions (their source) of the actor names that get the operator role. */
    operator_name_patterns: z.array(z.string()),
  }),
  runtime: z.union([
    runtimeHealthSchema.extend({ available: z.literal(true) }),
    z.object({ available: z.literal(false), failure: z.enum(['unavailable', 'failed', 'timed_out', 'bad_output']), error: z.string() }),
  ]),
  // the jobs as GET /api/cron/jobs lists them, without each one's raw runtime record
  scheduled_jobs: scheduledJobsSchema.extend({ jobs: z.array(scheduledJobsSchema.shape.jobs.element.omit({ _raw: true })) }),
  webhook_event_types: z.array(z.string()),
});

/** Settings (spec 02); the console's Settings screen (docs/console-api.md). */
export const routes: readonly Route[] = [
  { method: 'GET', path: '/api/settings', handler: 'settings/get-settings', response: settingsSchema },
  { method: 'PATCH', path: '/api/settings', handler: 'settings/update-settings', response: settingsSchema },
  { method: 'GET', path: '/api/settings/overview', handler: 'settings/get-settings-overview', response: settingsOverviewSchema },
];
