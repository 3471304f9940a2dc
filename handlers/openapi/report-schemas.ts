import * as z from 'zod';

/**
 * Success bodies of the routes that answer a report rather than an entity (health, stats, views,
 * summaries, runtime proxies): the keys each one promises, with their types. The entity schemas
 * live in core beside their types; these live here because core builds these answers inline.
 * Objects are loose where a body carries more than it promises (a runtime's own fields, a
 * report's optional detail); a key listed here is one the server always sends.
 */

const counts = z.record(z.string(), z.number());
const anyObject = z.record(z.string(), z.unknown());

export const healthSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  timestamp: z.string(),
  task_storage: z.enum(['database', 'fallback-file']),
  storage_type: z.literal('postgresql'),
  storage_mode: z.string(),
  storage_label: z.string(),
  storage_note: z.string().nullish(),
  db_latency_ms: z.number(),
  uptime: z.number().int(),
  port: z.number().int(),
});

export const authSelfSchema = z.looseObject({
  authenticated: z.boolean(),
  mode: z.literal('token'),
  actor: z.string(),
  role: z.string(),
  user: z.object({ name: z.string(), role: z.string() }),
  tokenRequired: z.boolean(),
  supportedSchemes: z.array(z.string()),
  publicRoutes: z.array(z.string()),
  capabilities: z.record(z.string(), z.boolean()),
});

export const statsSchema = z.object({ projects: z.number().int(), tasks: z.number().int(), completed: z.number().int() });

const gatewaySchema = z.looseObject({
  status: z.string(),
  healthy: z.boolean(),
  agent_count: z.number().int(),
  reason: z.string().optional(),
});
export const healthStatusSchema = z.object({
  status: z.enum(['healthy', 'degraded', 'unhealthy']),
  database: z.object({ status: z.string(), healthy: z.boolean(), mode: z.string() }),
  gateway: gatewaySchema,
  task_server: z.object({ healthy: z.boolean(), status: z.string() }),
  /** Active webhooks and the failing ones; absent without a database. */
  webhooks: z
    .object({
      healthy: z.boolean(),
      status: z.enum(['ok', 'failing']),
      active: z.number().int(),
      failing: z.array(z.object({ id: z.string(), url: z.string() })),
    })
    .optional(),
  /** Which way sessions and transcripts are read (the released runtime's gateway, or the CLI and the state files) and whether it answers. */
  runtime_access: z.object({
    way: z.enum(['gateway', 'cli+files']),
    healthy: z.boolean(),
    status: z.enum(['answering', 'not_answering']),
    failure: z.string().optional(),
    reason: z.string().optional(),
  }),
  checks: z.looseObject({ database: anyObject, gateway_sync: anyObject, task_server: anyObject }),
});

export const routeListSchema = z.object({
  routes: z.array(z.object({ method: z.string(), path: z.string() })),
  total: z.number().int(),
});

export const openApiSchema = z.looseObject({ openapi: z.string(), info: anyObject, paths: anyObject });

export { anyObject, counts };

/* Projects, tasks and views. Imported entity schemas keep these in step with core. */
import { projectWithWorkflowSchema } from '../../core/projects/queries';
import { taskSchema } from '../../core/tasks/task';

export const defaultProjectSchema = projectWithWorkflowSchema.extend({
  task_counts: z.object({ total: z.number().int(), open: z.number().int(), completed: z.number().int(), by_status: counts }),
});

export const legacyTasksSchema = z.object({ content: z.string(), path: z.string(), format: z.literal('markdown') });
export const legacyTasksWrittenSchema = anyObject;

export const retriedTaskSchema = z.object({ retried: z.literal(true), retry_count: z.number().int(), task: taskSchema });
export const dependenciesSchema = z.object({ dependencies: z.array(z.string()) });

export const taskOptionsSchema = z.object({
  defaults: z.object({ agent: z.string().nullable(), model: z.string().nullable() }),
  agents: z.array(
    z.object({ id: z.string(), name: z.string(), model: z.string().nullable(), sources: z.array(z.enum(['profile', 'runtime'])) }),
  ),
  models: z.array(z.string()),
});

export const boardSchema = z.object({
  project: projectWithWorkflowSchema.omit({ default_workflow: true }),
  workflow: z.object({ id: z.string().nullable(), name: z.string(), states: z.array(z.unknown()) }),
  columns: z.record(z.string(), z.array(taskSchema)),
});

const timelineDependencySchema = z.object({
  id: z.string(),
  title: z.string(),
  start_date: z.date().nullable(),
  due_date: z.date().nullable(),
});
// subtasks nest entries of the same shape; the document types one level (a recursive schema would
// need a component of its own, which the per-route schemas here do not make)
const timelineEntrySchema = z.object({
  task: taskSchema,
  subtasks: z.array(z.looseObject({ task: taskSchema, dependencies: z.array(timelineDependencySchema) })).optional(),
  dependencies: z.array(timelineDependencySchema),
});
export const timelineSchema = z.object({
  project: projectWithWorkflowSchema.omit({ default_workflow: true }),
  tasks: z.array(timelineEntrySchema),
  range: z.looseObject({}),
});

export const paginationSchema = z.object({
  page: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
  pages: z.number().int(),
});
export const agentQueueSchema = z.object({ agent: z.string(), tasks: z.array(taskSchema), pagination: paginationSchema });

export const agentLimitsSchema = z.object({
  agent_id: z.string(),
  max_concurrent_runs: z.number().int().nullable(),
  dispatch_paused_until: z.date().nullable(),
  pause_reason: z.string().nullable(),
  live_runs: z.number().int(),
});

/* History, state snapshots, spaces, legacy export/import and the org summary. */
import { auditRecordSchema } from '../../core/audit/audit-record';
import { entitySnapshotSchema } from '../../core/history/entity-snapshots';
import { projectSchema } from '../../core/projects/project';

export const historySchema = z.object({ entries: z.array(auditRecordSchema), total: z.number().int() });
export const taskHistorySchema = historySchema.extend({ taskId: z.string() });
export const taskSnapshotAtSchema = z.object({
  snapshot: anyObject,
  exact: z.boolean(),
  at: z.date(),
  snapshot_id: z.string(),
  taken_at: z.date(),
  reason: z.string(),
});
export const taskDiffSchema = z.object({
  taskId: z.string(),
  changes: z.array(z.object({ field: z.string(), from: z.unknown(), to: z.unknown() })),
  from: z.date(),
  to: z.date(),
});
export const stateSnapshotListSchema = z.object({ snapshots: z.array(entitySnapshotSchema), total: z.number().int() });
export const revertPreviewSchema = z.object({
  snapshot: z.looseObject({ id: z.string(), entity_type: z.string(), entity_id: z.string(), revertable: z.boolean() }),
  currentState: anyObject.nullable(),
  snapshotState: anyObject,
});
export const revertedSchema = z.object({ reverted: z.literal(true), entityType: z.string(), entityId: z.string(), snapshotId: z.string() });

const byStatusTotals = z.object({ total: z.number().int(), by_status: counts });
export const spaceStatsSchema = z.looseObject({
  workspace_id: z.string(),
  projects: byStatusTotals,
  tasks: byStatusTotals.extend({ open: z.number().int(), completed: z.number().int() }),
});
export const spaceProjectsSchema = z.object({ projects: z.array(projectSchema) });
export const assignedProjectsSchema = z.object({
  workspace_id: z.string(),
  project_ids: z.array(z.string()),
  assigned: z.array(z.string()),
  unassigned: z.array(z.string()),
});

export const legacyExportSchema = z.object({
  version: z.number().int(),
  exportedAt: z.date(),
  projects: z.array(anyObject),
  tasks: z.array(anyObject),
  workflows: z.array(anyObject),
  auditLog: z.array(anyObject),
  settings: anyObject,
});
export const importPreviewSchema = z.object({
  version: z.unknown(),
  projects: z.number().int(),
  tasks: z.number().int(),
  workflows: z.number().int(),
  auditLog: z.number().int(),
  hasSettings: z.boolean(),
  projectNames: z.array(z.string()),
});
export const importResultSchema = z.object({
  imported: counts,
  mode: z.string(),
  secretsDropped: z.array(z.string()).optional(),
  warnings: z.array(z.string()).optional(),
});

export const orgSummarySchema = z.object({
  departments: z.array(anyObject),
  totals: z.object({
    departments: z.number().int(),
    agents: z.number().int(),
    open_tasks: z.number().int(),
    active_runs: z.number().int(),
  }),
  generated_at: z.date(),
});

/* Workflow runs beyond the entity: stuck runs, the dispatcher, heartbeats, steps, sessions, scans, instrumentation. */
import { workflowRunSchema } from '../../core/workflows/run';

export const stuckRunsSchema = z.object({
  runs: z.array(workflowRunSchema.extend({ stuck_reason: z.string() })),
  total: z.number().int(),
  truncated: z.boolean(),
});

/** The tick's summary: its counts by phase; budgetEnforcement and capped carry one count per rule. */
export const tickSummarySchema = z.looseObject({
  source: z.string(),
  startedAt: z.string(),
  finishedAt: z.string(),
  durationMs: z.number(),
  recovered: z.object({ redispatched: z.number().int(), failed: z.number().int(), released: z.number().int(), timedOut: z.number().int() }),
  dispatched: z.number().int(),
  unrouted: z.number().int(),
  woken: z.number().int(),
  wakeFailed: z.number().int(),
  wakeErrors: z.array(z.string()),
  wakesInBackground: z.number().int(),
  budgetEnforcement: counts,
  leasesExpired: z.number().int(),
  capped: counts,
  heldByPause: z.number().int(),
  /** The runtime costs pass that follows a tick (docs/costs.md): in the pass's answer, not in stored summaries. */
  runtimeUsage: z
    .union([
      z.object({
        examined: z.number().int(),
        costed: z.number().int(),
        withoutUsage: z.number().int(),
        withoutSession: z.number().int(),
        unavailable: z.string().optional(),
      }),
      z.object({ error: z.string() }),
    ])
    .optional(),
});

export const dispatcherStatsSchema = z.object({
  queue: counts,
  failure_rate: z.object({ window_hours: z.number(), finished: z.number().int(), failed: z.number().int(), rate: z.number().nullable() }),
  route_count: z.number().int(),
  last_tick: z.object({ started_at: z.date(), finished_at: z.date(), source: z.string(), duration_ms: z.number() }).nullable(),
  last_tick_summary: tickSummarySchema.nullable(),
  ticks_last_hour: z.number().int(),
  capped: counts,
  paused_agents: z.array(z.object({ agent_id: z.string(), dispatch_paused_until: z.date(), pause_reason: z.string().nullable() })),
});

export const runHeartbeatSchema = z.object({ ok: z.literal(true), run_id: z.string(), status: z.string(), heartbeat_at: z.date() });
export const reportedStepSchema = z.object({ step: anyObject, run: workflowRunSchema });
export const blockerSummarySchema = z.object({
  total: z.number().int(),
  byType: z.array(z.object({ blockerType: z.string(), count: z.number().int(), severity: z.enum(['low', 'medium', 'high']) })),
});
export const sessionHeartbeatSchema = z.object({
  session_id: z.string(),
  active: z.literal(true),
  heartbeat_at: z.date(),
  run_ids: z.array(z.string()),
});
export const systemScanSchema = z.object({ workflowRunId: z.string(), status: z.string(), message: z.string() });
export const scanFollowUpSchema = z.object({
  run_id: z.string(),
  session_key: z.string(),
  delivered: z.literal(true),
  reply: z.string().nullable(),
});
export const recordedSchema = z.object({ recorded: z.literal(true), action: z.string(), audit_id: z.number().int() });
export const usageDecisionSchema = z.looseObject({
  window: z.object({ start: z.date(), end: z.date(), days: z.number().int() }),
  rule: z.unknown(),
});
export const agentBridgeSchema = z.object({
  state: z.enum(['workflow_ready', 'working', 'idle']),
  agent: z.string(),
  ready_count: z.number().int(),
  active_count: z.number().int(),
  pending_workflow_runs: z.array(
    z.object({
      id: z.string(),
      workflow_type: z.string(),
      target_agent_id: z.string(),
      input_payload: anyObject,
      dispatch_attempts: z.number().int(),
    }),
  ),
  workflow_run_count: z.number().int(),
});

/* Costs, the budget ledger, receipts, the action catalog, full-state snapshots, restore and settings. */
import { budgetRowSchema } from '../../core/budgets/budget';
import { spendSchema } from '../../core/budgets/status';
import { receiptSchema } from '../../core/actions/receipts';
import { tablePreviewSchema } from '../../core/restore/preview';

export const costSummarySchema = z.looseObject({
  available: z.literal(true),
  window_days: z.number().int(),
  currency: z.literal('USD'),
  today: z.object({ cost: z.number(), tokens: z.unknown(), runs: z.number().int() }),
  days: z.array(z.looseObject({ date: z.string(), cost: z.number(), runs: z.number().int() })),
  avg_daily_7d: z.number(),
  total_window: z.number(),
  subscription_cost: z.number(),
  unpriced_runs: z.number().int(),
  unpriced_tokens: z.object({ input: z.number(), output: z.number() }),
  top_run: anyObject.nullable(),
  timestamp: z.string(),
});

/** An unpriced run (tokens, no cost) as the ledger and the rollup list it (core/budgets/spend.ts, UnpricedRun). */
const unpricedRunSchema = z.object({
  id: z.string(),
  workflow_type: z.string(),
  agent_id: z.string().nullable(),
  model_id: z.string().nullable(),
  input_tokens: z.number().nullable(),
  output_tokens: z.number().nullable(),
  usage_at: z.date(),
});

export const costRollupSchema = z.looseObject({
  available: z.literal(true),
  group_by: z.string(),
  window_days: z.number().int(),
  currency: z.literal('USD'),
  group_count: z.number().int(),
  groups: z.array(
    z.object({
      key: z.string(),
      cost: z.number(),
      runs: z.number().int(),
      tokens: z.object({ input: z.number(), output: z.number() }),
      series: z.array(z.object({ date: z.string(), cost: z.number() })),
    }),
  ),
  total_window: z.number(),
  subscription_cost: z.number(),
  unpriced_runs: z.number().int(),
  unpriced_tokens: z.object({ input: z.number(), output: z.number() }),
  unpriced_run_list: z.array(unpricedRunSchema),
  timestamp: z.string(),
});

export const budgetLedgerSchema = z.object({
  available: z.literal(true),
  budget: budgetRowSchema.omit({ created_at: true, updated_at: true }),
  period_key: z.string(),
  window_start: z.string(),
  window_end: z.string(),
  spend: spendSchema,
  pct_of_cap: z.number(),
  status: z.string(),
  events: z.array(anyObject),
  unpriced_runs: z.array(unpricedRunSchema),
  timestamp: z.string(),
});

export const recentReceiptsSchema = z.object({ available: z.literal(true), receipts: z.array(receiptSchema), timestamp: z.string() });

export const actionCatalogSchema = z.object({
  hold_confirm_min_ms: z.number().int(),
  kinds: z.array(
    z.object({
      kind: z.string(),
      target: z.unknown(),
      params_schema: anyObject,
      severity: z.string(),
      confirm: z.looseObject({ mode: z.string() }),
      rollback_hint_template: z.string().nullable(),
      governance_action: z.union([z.string(), anyObject]),
      dispatch_class: z.boolean(),
    }),
  ),
});

export const createdSnapshotSchema = z.object({ snapshot_id: z.string(), manifest: anyObject });

export const restorePreviewSchema = z.object({
  schema_compat: z.literal('ok'),
  warnings: z.array(z.string()),
  warning_details: z.array(anyObject),
  tables: z.record(z.string(), tablePreviewSchema),
  totals: counts,
  settings: z.object({ keys: z.array(z.string()), dropped: z.boolean() }),
  snapshot_id: z.string(),
  created_at: z.string(),
  timestamp: z.string(),
});

export const restoreAppliedSchema = z.object({
  restoreId: z.string(),
  duplicate: z.boolean(),
  resumed: z.boolean(),
  warnings: z.array(z.string()),
  summary: anyObject,
});

export const settingsSchema = z.object({
  settings: anyObject,
  environment: z.record(z.string(), z.object({ type: z.string(), set: z.boolean() })),
  schema: z.array(z.object({ key: z.string(), source: z.string(), type: z.string(), description: z.string() })),
  timestamp: z.string(),
});

/*
 * The agent runtime behind the server: proxies answer the runtime's records as it gives them
 * (arrays of objects), under keys of our own; transcripts are read by the session reader.
 */
const records = z.array(z.unknown());
const source = z.string();

export const runtimeHealthSchema = z.object({
  source,
  ok: z.boolean(),
  channels: anyObject,
  agents: records,
  heartbeatSeconds: z.number().nullable(),
  defaultAgentId: z.string().nullable(),
});
export const runtimeTasksSchema = z.object({ source, count: z.number().int(), tasks: records });
/** `findings` and `summary` only from a runtime that reports findings (the released one). */
export const runtimeTaskAuditSchema = z.object({
  source,
  stale: records,
  broken: records,
  findings: records.optional(),
  summary: anyObject.nullable().optional(),
});
export const runtimeAgentsSchema = z.object({ source, agents: z.array(z.looseObject({ id: z.string() })) });
export const memoryIndexedSchema = z.object({ source, success: z.literal(true), agentId: z.string(), result: z.unknown() });
export const memoryCandidatesSchema = z.object({ source, agentId: z.string(), candidates: records });
export const memoryPromotedSchema = z.object({ source, success: z.literal(true), agentId: z.string(), promoted: records });

export const scheduledJobsSchema = z.object({
  // a legacy definition file's job carries its own fields beside these
  jobs: z.array(
    z.looseObject({
      id: z.string(),
      name: z.string(),
      description: z.string(),
      schedule: z.string(),
      enabled: z.boolean(),
      status: z.enum(['success', 'failed', 'unknown']),
      lastRun: z.string().nullable(),
      nextRun: z.string().nullable(),
      agentId: z.string().nullable(),
      model: z.string().nullable(),
      legacy: z.boolean(),
      _raw: z.unknown(),
    }),
  ),
  runtime: z.looseObject({ ok: z.boolean() }),
  unreadableLegacyFiles: z.array(z.unknown()).optional(),
});
export const jobRunsSchema = z.object({ jobId: z.string(), runs: z.array(anyObject) });
export const jobStartedSchema = z.object({ success: z.literal(true), message: z.string(), data: z.unknown() });
export const jobToggledSchema = z.object({ success: z.literal(true), data: z.unknown() });
export const jobWrittenSchema = z.object({ success: z.literal(true), id: z.string() });
/** A deleted job: spec 01's answer for a legacy file; `legacy: false` when the runtime's scheduler removed it (`cron rm`). */
export const jobDeletedSchema = jobWrittenSchema.extend({ legacy: z.literal(false).optional() });
/** A job created through the released runtime's `cron add` carries the runtime's id, its name, and the job as listed (spec 01's answer for a legacy file). */
export const jobCreatedSchema = z.object({
  success: z.literal(true),
  id: z.string(),
  legacy: z.literal(false).optional(),
  name: z.string().optional(),
  job: z.looseObject({ id: z.string(), name: z.string(), enabled: z.boolean(), legacy: z.literal(false) }).optional(),
});

export const runtimeSessionAgentsSchema = z.object({
  agents: z.array(z.object({ agentId: z.string(), sessions: z.number().int(), error: z.string().optional() })),
});
export const runtimeSessionsSchema = z.object({ agentId: z.string().optional(), sessions: z.array(anyObject), total: z.number().int() });
export const sessionDetailSchema = z.looseObject({
  sessionId: z.string(),
  agentId: z.string(),
  messages: z.array(anyObject),
  totalLines: z.number().int(),
  hasOlder: z.boolean(),
  oldestLine: z.number().int().nullable(),
  partial: z.boolean(),
  truncated: z.boolean(),
  transcriptAvailable: z.boolean(),
});
export const sessionMessagesSchema = z.object({
  sessionId: z.string(),
  messages: z.array(anyObject),
  nextCursor: z.number().int().nullable(),
  hasMore: z.boolean(),
});
export const sessionEventsSchema = z.object({
  sessionId: z.string(),
  agentId: z.string(),
  events: z.array(anyObject),
  nextAfterLine: z.number().int(),
  hasMore: z.boolean(),
  totalLines: z.number().int(),
  partial: z.boolean(),
  truncated: z.boolean(),
});
export const sessionEventDetailSchema = z.object({
  sessionId: z.string(),
  agentId: z.string(),
  line: z.number().int(),
  found: z.literal(true),
  event: z.unknown(),
  extraEvents: z.array(z.unknown()),
  source: z.unknown(),
  totalLines: z.number().int(),
  truncated: z.boolean(),
});
export const taskSessionsSchema = z.object({
  taskId: z.string(),
  sessions: z.array(z.looseObject({ runId: z.string(), sessionKey: z.string().nullable() })),
});

import { chatTurnUsageSchema } from '../../core/runtime/chat';
export const chatReplySchema = z.object({
  success: z.literal(true),
  sessionKey: z.string(),
  messageId: z.string(),
  replyId: z.string(),
  reply: z.string(),
  usage: chatTurnUsageSchema.nullable(),
  timestamp: z.string(),
});
export const chatHistorySchema = z.object({
  sessionKey: z.string(),
  history: z.array(z.object({ role: z.string(), content: z.string(), status: z.string(), timestamp: z.string() })),
});
export const citationQueueSchema = z.object({
  success: z.boolean(),
  pending: z.number().int(),
  total: z.number().int(),
  timestamp: z.string(),
  error: z.string().optional(),
});

/* The console's Settings screen: GET /api/settings/overview (core/settings/overview.ts). */
import { governanceActions } from '../../core/workflows/governance';
import { routeSchema } from '../../core/workflows/routing';

export const settingsOverviewSchema = z.object({
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
