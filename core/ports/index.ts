import type { ModelPriceTable } from '../costs/pricing';
import type { MarkdownTaskFile } from '../legacy/markdown-tasks';
import type { SnapshotPorts } from '../snapshots/store';
import type { DispatcherSettings } from '../workflows/dispatcher';
import type { Clock } from './clock';
import type { EventBus } from './events';
import type { Ids } from './ids';
import type { DataFile, LegacyJobFiles, Runtime } from './runtime';
import type { Storage } from './storage';
import type { WebhookTransport } from './webhooks';

export type { Db, QueryResult } from './db';
export type { Clock } from './clock';
export type { Ids } from './ids';
export type { EventBus, DomainEvent, EventChannel, InlineEvent } from './events';
export type { Storage, FallbackData } from './storage';
export type { Runtime, RuntimeDocument, RuntimeCallOptions, LegacyJobFiles, DataFile } from './runtime';
export type { WebhookTransport, WebhookRequest, WebhookResponse } from './webhooks';

/**
 * Everything a use case may touch, built once per process by infra/app-context.ts (tests replace
 * single members on `app.ctx.deps`). Nothing in core reaches the world any other way: no module
 * state, no adapter built per request.
 */
export interface Deps extends SnapshotPorts {
  storage: Storage;
  clock: Clock;
  ids: Ids;
  events: EventBus;
  runtime: Runtime;
  /** MODEL_PRICES_FILE's table; empty prices nothing (usage then stays unpriced). */
  prices: ModelPriceTable;
  /** DATA_DIR/cron-jobs: the legacy scheduled-job definitions. */
  legacyJobs: LegacyJobFiles;
  /** DATA_DIR/tasks.md: the legacy markdown task list. */
  taskFile: MarkdownTaskFile;
  /** DATA_DIR/citation-queue.json, kept by another program. */
  citationQueue: DataFile;
  /** What every dispatcher tick uses, whoever starts it. */
  dispatcher: DispatcherSettings;
  /** Webhook deliveries' HTTP and destination check (issue 18). */
  webhooks: WebhookTransport;
}
