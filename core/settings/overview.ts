import { RuntimeCallError } from '../errors';
import { healthReport, type StorageDescription } from '../health/health';
import type { Deps } from '../ports';
import { runtimeHealth } from '../runtime/proxies';
import { listScheduledJobs } from '../runtime/scheduled-jobs';
import { buildGovernancePolicySummary, operatorNamePatterns, privilegedActors } from '../workflows/governance';
import { listRoutes } from '../workflows/routing';
import { webhookEventTypes } from '../webhooks/event-types';

/** What the process knows of itself, passed by the handler (core reads no package file or clock of the process). */
export interface ServerFacts {
  version: string;
  port: number;
  startedAt: Date;
  uptimeSeconds: number;
  storage: StorageDescription;
}

/** A runtime call that failed, reported as its section's answer instead of failing the whole read. */
function runtimeFailure(err: unknown) {
  if (!(err instanceof RuntimeCallError)) throw err;
  return { available: false as const, failure: err.failure, error: err.message };
}

/**
 * GET /api/settings/overview: what the console's Settings screen shows beside the webhooks, in one
 * read, each section as its own route answers it: the server (GET /api/health, plus its version and
 * when it started), the routing entries (GET /api/workflow-routing), the governance policy (spec 03's
 * rule table and actor resolution, which no other route answers), the runtime's health (GET
 * /api/runtime/health; a failed call is `{available: false}`, not a 502) and its scheduled jobs (GET
 * /api/cron/jobs, whose `runtime` says whether the runtime answered). The sections are read at once;
 * reads only. `webhook_event_types` lists what a webhook may subscribe to (`*` first: every event).
 */
export async function settingsOverview(deps: Pick<Deps, 'storage' | 'clock' | 'runtime' | 'legacyJobs'>, server: ServerFacts) {
  const [health, routing, runtime, jobs] = await Promise.all([
    healthReport(deps, { port: server.port, uptimeSeconds: server.uptimeSeconds, storage: server.storage }),
    listRoutes(deps),
    runtimeHealth(deps).then((h) => ({ available: true as const, ...h }), runtimeFailure),
    listScheduledJobs(deps),
  ]);
  return {
    server: {
      version: server.version,
      status: health.status,
      storage_mode: health.storage_mode,
      storage_label: health.storage_label,
      storage_note: health.storage_note ?? null,
      db_latency_ms: health.db_latency_ms,
      started_at: server.startedAt,
      uptime_seconds: health.uptime,
      metrics_path: '/api/metrics',
      openapi_path: '/api/openapi.json',
    },
    routing: routing.routes,
    governance: {
      actions: buildGovernancePolicySummary(),
      privileged_actors: [...privilegedActors],
      operator_name_patterns: operatorNamePatterns.map((p) => p.source),
    },
    runtime,
    // the jobs as listed, without each one's raw runtime record (GET /api/cron/jobs has it)
    scheduled_jobs: { ...jobs, jobs: jobs.jobs.map(({ _raw, ...job }) => job) },
    webhook_event_types: [...webhookEventTypes],
  };
}
