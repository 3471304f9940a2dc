import type { operations } from '../../mcp/task-server-paths';
import { api, expectData } from './api';
import type { Topic } from './queries';

/**
 * GET /api/settings/overview (docs/console-api.md): the server, routing entries, governance policy,
 * runtime health, scheduled jobs and the webhook event types, in one read.
 */
export type SettingsOverview = operations['settingsGetSettingsOverview']['responses'][200]['content']['application/json'];
export type RoutingEntry = SettingsOverview['routing'][number];
export type ScheduledJob = SettingsOverview['scheduled_jobs']['jobs'][number];
export type JobRun = operations['cronListJobRuns']['responses'][200]['content']['application/json']['runs'][number];

export type Webhook = operations['webhooksListWebhooks']['responses'][200]['content']['application/json']['webhooks'][number];
export type CreatedWebhook = operations['webhooksCreateWebhook']['responses'][201]['content']['application/json'];
export type Delivery = operations['webhooksListWebhookDeliveries']['responses'][200]['content']['application/json']['deliveries'][number];
export type WebhookEvent = NonNullable<operations['webhooksCreateWebhook']['requestBody']>['content']['application/json']['events'][number];

export const OVERVIEW_KEY = 'settings:overview';
export const WEBHOOKS_KEY = 'settings:webhooks';
export const deliveriesKey = (webhookId: string) => `settings:deliveries:${webhookId}`;
export const jobRunsKey = (jobId: string) => `settings:job-runs:${jobId}`;
export const overviewTopics: readonly Topic[] = ['settings'];
export const webhookTopics: readonly Topic[] = ['webhooks'];
/** How many deliveries the log shows, newest first, and how many runs of a job. */
export const DELIVERY_LOG_LENGTH = 20;
export const RECENT_RUNS = 5;

export const loadOverview = (): Promise<SettingsOverview> => expectData(api().GET('/api/settings/overview'));
export const loadWebhooks = (): Promise<{ webhooks: Webhook[] }> => expectData(api().GET('/api/webhooks'));
export const loadDeliveries = (id: string): Promise<{ deliveries: Delivery[] }> =>
  expectData(api().GET('/api/webhooks/{id}/deliveries', { params: { path: { id }, query: { limit: DELIVERY_LOG_LENGTH } } }));
export const loadJobRuns = (id: string): Promise<{ runs: JobRun[] }> =>
  expectData(api().GET('/api/cron/jobs/{id}/runs', { params: { path: { id }, query: { limit: RECENT_RUNS } } }));

/**
 * POST /api/webhooks. The server makes the signing secret and answers it this once: the caller keeps
 * it in the form's own state only (never the query cache, a URL or a log).
 */
export const createWebhook = (url: string, events: WebhookEvent[]): Promise<CreatedWebhook> =>
  expectData(api().POST('/api/webhooks', { body: { url, events } }));
export const setWebhookActive = (id: string, active: boolean) =>
  expectData(api().PATCH('/api/webhooks/{id}', { params: { path: { id } }, body: { active } }));
export const deleteWebhook = (id: string) => expectData(api().DELETE('/api/webhooks/{id}', { params: { path: { id } } }));
/** POST /api/webhooks/:id/test: one `webhook.test` delivery sent now, answered with its outcome (also in the log). */
export const sendTest = (id: string): Promise<Delivery> => expectData(api().POST('/api/webhooks/{id}/test', { params: { path: { id } } }));

export const runJobNow = (id: string) => expectData(api().POST('/api/cron/jobs/{id}/run', { params: { path: { id } } }));
export const setJobEnabled = (id: string, enabled: boolean) =>
  enabled
    ? expectData(api().POST('/api/cron/jobs/{id}/enable', { params: { path: { id } } }))
    : expectData(api().POST('/api/cron/jobs/{id}/disable', { params: { path: { id } } }));
