import type { Clock } from './clock';
import type { EventBus } from './events';
import type { Ids } from './ids';
import type { DataFile, LegacyJobFiles, Runtime } from './runtime';
import type { SnapshotPorts } from './snapshot-store';
import type { DispatcherSettings } from './dispatcher';
import type { ModelPriceTable } from './prices';
import type { Storage } from './storage';
import type { MarkdownTaskFile } from './task-file';
import type { WebhookTransport } from './webhooks';

export type { Db, QueryResult } from './db';
export type { Clock } from './clock';
export type { Ids } from './ids';
export type { EventBus, DomainEvent, EventChannel, InlineEvent } from './events';
export type { Storage, FallbackData, Project } from './storage';
export type { Runtime, RuntimeDocument, RuntimeCallOptions, LegacyJobFiles, DataFile } from './runtime';
export type { WebhookTransport, WebhookRequest, WebhookResponse } from './webhooks';
export type { MarkdownTaskFile } from './task-file';
export type { BillingMode, ModelPrice, ModelPriceTable, PriceHistory } from './prices';
export type {
  BudgetEnforcementCounts,
  BudgetGate,
  BudgetVerdict,
  CappedCounts,
  DispatchCandidate,
  DispatcherSettings,
  TickBudgetCheck,
  TickSummary,
} from './dispatcher';
export type { ArtifactWriter, ByteSource, Generator, SnapshotPorts, SnapshotStore, StoredArtifact } from './snapshot-store';

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
  /** Webhook deliveries' HTTP and the check of their destinations. */
  webhooks: WebhookTransport;
}
