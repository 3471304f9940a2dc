import * as z from 'zod';
import { agentBillingSchema } from '../../core/agents/billing';
import { agentTokenSchema, createAgentTokenSchema, createdAgentTokenSchema } from '../../core/auth/agent-tokens';
import {
  createdWebhookSchema,
  createWebhookSchema,
  deliveriesQuerySchema,
  deliverySchema,
  updateWebhookSchema,
  webhookSchema,
} from '../../core/webhooks/webhooks';
import { priceTableAnswerSchema, putPriceTableSchema } from '../../core/costs/price-book';
import { repriceAnswerSchema, repriceSchema } from '../../core/costs/reprice';
import { rebuildUsageSchema } from '../../core/costs/usage-rollup';
import { auditRecordSchema } from '../../core/audit/audit-record';
import { savedViewSchema } from '../../core/views/saved-view';
import { approvalSchema } from '../../core/workflows/approvals';
import { artifactSchema } from '../../core/workflows/artifacts';
import { routeSchema } from '../../core/workflows/routing';
import { workflowTemplateSchema } from '../../core/workflows/template';
import { envelopeSchema } from '../../core/actions/envelope';
import { doctorRepairSchema, doctorReportSchema } from '../../core/doctor/doctor';
import { workspaceSchema } from '../../core/spaces/space';
import {
  actionCatalogSchema,
  agentBridgeSchema,
  chatHistorySchema,
  chatReplySchema,
  citationQueueSchema,
  jobRunsSchema,
  jobStartedSchema,
  jobToggledSchema,
  jobDeletedSchema,
  jobCreatedSchema,
  memoryCandidatesSchema,
  memoryIndexedSchema,
  memoryPromotedSchema,
  runtimeAgentsSchema,
  runtimeHealthSchema,
  runtimeSessionAgentsSchema,
  runtimeSessionsSchema,
  runtimeTaskAuditSchema,
  runtimeTasksSchema,
  scheduledJobsSchema,
  sessionDetailSchema,
  sessionEventDetailSchema,
  sessionEventsSchema,
  sessionMessagesSchema,
  taskSessionsSchema,
  anyObject,
  budgetLedgerSchema,
  costRollupSchema,
  costSummarySchema,
  createdSnapshotSchema,
  recentReceiptsSchema,
  restoreAppliedSchema,
  restorePreviewSchema,
  settingsSchema,
  agentLimitsSchema,
  agentQueueSchema,
  blockerSummarySchema,
  dispatcherStatsSchema,
  recordedSchema,
  reportedStepSchema,
  runHeartbeatSchema,
  scanFollowUpSchema,
  sessionHeartbeatSchema,
  stuckRunsSchema,
  systemScanSchema,
  tickSummarySchema,
  usageDecisionSchema,
  assignedProjectsSchema,
  historySchema,
  importPreviewSchema,
  importResultSchema,
  legacyExportSchema,
  orgSummarySchema,
  revertedSchema,
  revertPreviewSchema,
  spaceProjectsSchema,
  spaceStatsSchema,
  stateSnapshotListSchema,
  taskDiffSchema,
  taskHistorySchema,
  taskSnapshotAtSchema,
  authSelfSchema,
  boardSchema,
  defaultProjectSchema,
  dependenciesSchema,
  healthSchema,
  healthStatusSchema,
  legacyTasksSchema,
  openApiSchema,
  retriedTaskSchema,
  routeListSchema,
  statsSchema,
  taskOptionsSchema,
  timelineSchema,
  settingsOverviewSchema,
} from './report-schemas';
import { actionAnswerSchema } from '../../core/actions/execute';
import { livenessEntrySchema } from '../../core/agents/liveness';
import { snapshotListEntrySchema } from '../../core/snapshots/manifest';
import { blockerSchema } from '../../core/workflows/blockers';
import { activeSessionSchema } from '../../core/workflows/sessions';
import { sessionTailQuerySchema } from '../../core/runtime/session-tail';
import { runtimeSessionsQuerySchema } from '../../core/runtime/session-reader';
import { sessionEventDetailQuerySchema, sessionEventsQuerySchema } from '../../core/runtime/session-events';
import { sessionSearchQuerySchema, sessionSearchSchema } from '../../core/runtime/session-search';
import { auditQuerySchema } from '../../core/audit/list-audit';
import { auditCsvQuerySchema } from '../../core/audit/export-audit';
import { restoreStatusSchema } from '../../core/restore/restore-status';
import { entitySnapshotsQuerySchema } from '../../core/history/state-snapshots';
import { telemetrySchema } from '../../core/workflows/instrumentation';
import { createBudgetSchema, updateBudgetSchema } from '../../core/budgets/budget';
import { budgetAnswerSchema } from '../../core/budgets/commands';
import { budgetViewSchema } from '../../core/budgets/evaluation';
import { ledgerQuerySchema } from '../../core/budgets/queries';
import { burnDownsAnswerSchema } from '../../core/budgets/burn-down';
import { costRollupQuerySchema } from '../../core/costs/rollup';
import { costSummaryQuerySchema } from '../../core/costs/summary';
import { createProjectSchema, projectSchema, updateProjectSchema } from '../../core/projects/project';
import { listProjectsQuerySchema, projectWithWorkflowSchema } from '../../core/projects/queries';
import { listAllTasksQuerySchema } from '../../core/tasks/queries';
import { taskHitSchema, taskSearchQuerySchema } from '../../core/tasks/search';
import { createTaskSchema, taskSchema, updateTaskSchema } from '../../core/tasks/task';
import { taskDetailSchema } from '../../core/tasks/queries';
import { agentQueueQuerySchema } from '../../core/views/agent-queue';
import { boardFirstTasksFieldsSchema, boardQuerySchema } from '../../core/views/board';
import { boardStuckSchema } from '../../core/views/board-stuck';
import { boardAsOfQuerySchema } from '../../core/views/board-as-of';
import { inboxQuerySchema, inboxSchema } from '../../core/inbox/inbox';
import { timelineQuerySchema } from '../../core/views/timeline';
import { heartbeatSchema, livenessQuerySchema } from '../../core/agents/liveness';
import { claimSchema, releaseSchema } from '../../core/agents/locks';
import {
  decideApprovalSchema,
  escalateApprovalSchema,
  listApprovalsQuerySchema,
  pendingApprovalsQuerySchema,
  requestApprovalSchema,
} from '../../core/workflows/approvals';
import { listArtifactsQuerySchema, registerArtifactSchema, updateArtifactSchema } from '../../core/workflows/artifacts';
import {
  createRunSchema,
  listRunsQuerySchema,
  pendingRunsQuerySchema,
  runListSchema,
  startRunSchema,
  workflowRunSchema,
} from '../../core/workflows/run';
import { runDetailSchema } from '../../core/workflows/run-queries';
import { budgetStopSchema, operatorStartSchema } from '../../core/workflows/run-session-reports';
import { claimResultSchema } from '../../core/workflows/run-claim';
import { createdRunSchema } from '../../core/workflows/run-create';
import { rosterQuerySchema, rosterSchema } from '../../core/agents/roster';
import { jobRunsQuerySchema } from '../../core/runtime/scheduled-jobs';
import { runPageSchema } from '../../core/workflows/run-page';
import { runsViewQuerySchema, runsViewSchema } from '../../core/workflows/runs-view';

/** What the OpenAPI document knows of a route beyond its path: the zod schemas its use case parses with. */
export interface RouteSchemas {
  query?: z.ZodType;
  body?: z.ZodType;
  /** The success body, where core has a schema for it: one for every success status, or one per status. */
  response?: z.ZodType | Readonly<Record<number, z.ZodType>>;
  /** The 2xx statuses the handler answers; 200 when not given. */
  success?: readonly number[];
  /** The success body's media type when it is not JSON (metrics, event streams). */
  contentType?: string;
  /** Spec 02's degraded answer: 200 `{available: false, reason}` when the data is not there (core/costs/availability.ts). */
  degrades?: boolean;
}

const deleted = (key: string) => z.object({ deleted: z.literal(true), [key]: z.string() });
const listOf = <T extends z.ZodType>(key: string, item: T) =>
  z.object({ [key]: z.array(item), total: z.number().int(), truncated: z.boolean() });
const approvalAndRun = z.object({ approval: approvalSchema, run: workflowRunSchema });

/**
 * Schemas by route key. A route without an entry still appears in the document, with its path
 * parameters and a generic body, so a new route never needs an edit here to be listed.
 */
export const routeSchemas: Readonly<Record<string, RouteSchemas>> = {
  'GET /api/health': { response: healthSchema },
  'GET /api/auth/self': { response: authSelfSchema },
  'GET /api/stats': { response: statsSchema },
  'GET /api/health-status': { response: healthStatusSchema },
  'GET /api/routes': { response: routeListSchema },
  'GET /api/openapi.json': { response: openApiSchema },
  'GET /api/metrics': { contentType: 'text/plain' },
  'GET /api/events': { contentType: 'text/event-stream' },
  'GET /api/events/stream': { contentType: 'text/event-stream' },
  'GET /api/rt/sessions/{sessionId}/tail': { query: sessionTailQuerySchema, contentType: 'text/event-stream' },
  'GET /api/projects': { query: listProjectsQuerySchema, response: projectSchema.array() },
  'POST /api/projects': { body: createProjectSchema, response: projectWithWorkflowSchema, success: [201] },
  'GET /api/workflow-templates': { response: z.object({ templates: z.array(workflowTemplateSchema) }) },
  'POST /api/workflow-templates': { success: [201], response: workflowTemplateSchema },
  'GET /api/workflow-templates/{name}': { response: workflowTemplateSchema },
  'PATCH /api/workflow-templates/{name}': { response: workflowTemplateSchema },
  'GET /api/workflow-routing': { response: z.object({ routes: z.array(routeSchema) }) },
  'GET /api/workflow-routing/{workflowType}': { response: routeSchema },
  'PUT /api/workflow-routing/{workflowType}': { response: routeSchema },
  'DELETE /api/workflow-routing/{workflowType}': { response: deleted('workflow_type') },
  'GET /api/views': { response: z.array(savedViewSchema) },
  'POST /api/views': { success: [201], response: savedViewSchema },
  'GET /api/views/{id}': { response: savedViewSchema },
  'PATCH /api/views/{id}': { response: savedViewSchema },
  'DELETE /api/views/{id}': { response: deleted('id') },
  'DELETE /api/tasks/{id}': { response: deleted('id') },
  'GET /api/tasks/{id}/history': { response: z.object({ task_id: z.string(), history: z.array(auditRecordSchema) }) },
  'POST /api/system-scan/run': { success: [201], response: systemScanSchema },
  'POST /api/system-scan/followup': { response: scanFollowUpSchema },
  'GET /api/cron/jobs': { response: scheduledJobsSchema },
  'POST /api/cron/jobs': { success: [201], response: jobCreatedSchema },
  'DELETE /api/cron/jobs/{id}': { response: jobDeletedSchema },
  'GET /api/cron/jobs/{id}/runs': { query: jobRunsQuerySchema, response: jobRunsSchema },
  'POST /api/cron/jobs/{id}/run': { success: [202], response: jobStartedSchema },
  'POST /api/cron/jobs/{id}/enable': { response: jobToggledSchema },
  'POST /api/cron/jobs/{id}/disable': { response: jobToggledSchema },
  'GET /api/runtime/health': { response: runtimeHealthSchema },
  'GET /api/runtime/tasks': { response: runtimeTasksSchema },
  'GET /api/runtime/tasks/audit': { response: runtimeTaskAuditSchema },
  'GET /api/runtime/agents': { response: runtimeAgentsSchema },
  'POST /api/runtime/memory/index': { response: memoryIndexedSchema },
  'GET /api/runtime/memory/promote': { response: memoryCandidatesSchema },
  'POST /api/runtime/memory/promote': { response: memoryPromotedSchema },
  'GET /api/rt/agents': { response: runtimeSessionAgentsSchema },
  'GET /api/rt/sessions': { query: runtimeSessionsQuerySchema, response: runtimeSessionsSchema },
  'GET /api/rt/sessions/{sessionId}': { response: sessionDetailSchema },
  'GET /api/rt/sessions/{sessionId}/messages': { response: sessionMessagesSchema },
  'GET /api/rt/sessions/{sessionId}/events': { query: sessionEventsQuerySchema, response: sessionEventsSchema },
  'GET /api/rt/sessions/{sessionId}/events/{line}': { query: sessionEventDetailQuerySchema, response: sessionEventDetailSchema },
  'GET /api/tasks/{id}/sessions': { response: taskSessionsSchema },
  'POST /api/agent/chat': { response: chatReplySchema },
  'GET /api/agent/chat/history': { response: chatHistorySchema },
  'GET /api/citation-queue/status': { response: citationQueueSchema },
  'POST /api/snapshots': { success: [201], response: createdSnapshotSchema },
  'GET /api/snapshots': {
    response: z.object({ available: z.literal(true), count: z.number().int(), snapshots: z.array(snapshotListEntrySchema) }),
  },
  // the artifact itself (streamed), or a redirect to the object store
  'GET /api/snapshots/{id}/download': { success: [200, 302], response: anyObject },
  'POST /api/budgets': { body: createBudgetSchema, success: [201], degrades: true, response: budgetAnswerSchema },
  'POST /api/spaces': { success: [201], response: workspaceSchema },
  'POST /api/spaces/{id}/duplicate': { success: [201], response: workspaceSchema },
  'POST /api/workflow-graph/events': { success: [201], response: recordedSchema },
  'GET /api/workflow-graph/usage-decision': { response: usageDecisionSchema },
  'POST /api/mcp/telemetry': { body: telemetrySchema, success: [201], response: recordedSchema },
  'POST /api/actions/execute': { body: envelopeSchema, response: actionAnswerSchema },
  'GET /api/projects/{id}': { response: projectWithWorkflowSchema },
  'GET /api/projects/default': { response: defaultProjectSchema },
  'DELETE /api/projects/{id}': { response: deleted('id') },
  'GET /api/tasks': { response: legacyTasksSchema },
  'POST /api/tasks/{id}/dependencies': { response: dependenciesSchema },
  'POST /api/tasks/{id}/subtasks': { response: taskDetailSchema },
  'POST /api/tasks/{id}/retry': { response: retriedTaskSchema },
  'GET /api/task-options': { response: taskOptionsSchema },
  'GET /api/doctor': { response: doctorReportSchema },
  'POST /api/doctor/repair': { response: doctorRepairSchema },
  'GET /api/history': { response: historySchema },
  'GET /api/history/{taskId}': { response: taskHistorySchema },
  'GET /api/history/{taskId}/snapshot': { response: taskSnapshotAtSchema },
  'GET /api/history/{taskId}/diff': { response: taskDiffSchema },
  'GET /api/state-snapshots': { response: stateSnapshotListSchema },
  'GET /api/snapshots/{entityType}/{entityId}': { query: entitySnapshotsQuerySchema, response: stateSnapshotListSchema },
  'POST /api/snapshots/{snapshotId}/preview-revert': { response: revertPreviewSchema },
  'POST /api/snapshots/{snapshotId}/revert': { response: revertedSchema },
  'GET /api/spaces': { response: z.object({ spaces: z.array(workspaceSchema) }) },
  'GET /api/spaces/{id}': { response: workspaceSchema },
  'PUT /api/spaces/{id}': { response: workspaceSchema },
  'DELETE /api/spaces/{id}': { response: z.object({ deleted: z.literal(true) }) },
  'POST /api/spaces/{id}/set-default': { response: workspaceSchema },
  'GET /api/spaces/{id}/projects': { response: spaceProjectsSchema },
  'PUT /api/spaces/{id}/projects': { response: assignedProjectsSchema },
  'GET /api/spaces/{id}/stats': { response: spaceStatsSchema },
  'GET /api/export': { response: legacyExportSchema },
  'POST /api/import/preview': { response: importPreviewSchema },
  'POST /api/import': { response: importResultSchema },
  'GET /api/org/summary': { response: orgSummarySchema },
  'GET /api/inbox': { query: inboxQuerySchema, response: inboxSchema },
  'GET /api/agents/{agent}/limits': { response: agentLimitsSchema },
  'PUT /api/agents/{agent}/limits': { response: agentLimitsSchema },
  'PUT /api/agents/{agent}/billing': { response: agentBillingSchema },
  'POST /api/agent-tokens': { body: createAgentTokenSchema, success: [201], response: createdAgentTokenSchema },
  'GET /api/agent-tokens': { response: z.object({ tokens: z.array(agentTokenSchema) }) },
  'DELETE /api/agent-tokens/{id}': { response: agentTokenSchema },
  'POST /api/webhooks': { body: createWebhookSchema, success: [201], response: createdWebhookSchema },
  'GET /api/webhooks': { response: z.object({ webhooks: z.array(webhookSchema) }) },
  'POST /api/webhooks/deliver': {
    response: z.object({ enqueued: z.number().int(), attempted: z.number().int(), delivered: z.number().int(), failed: z.number().int() }),
  },
  'GET /api/webhooks/{id}': { response: webhookSchema },
  'PATCH /api/webhooks/{id}': { body: updateWebhookSchema, response: webhookSchema },
  'DELETE /api/webhooks/{id}': { response: z.object({ deleted: z.literal(true), id: z.string() }) },
  'GET /api/webhooks/{id}/deliveries': { query: deliveriesQuerySchema, response: z.object({ deliveries: z.array(deliverySchema) }) },
  'POST /api/webhooks/{id}/test': { response: deliverySchema },
  'GET /api/costs/prices': { response: priceTableAnswerSchema },
  'PUT /api/costs/prices': { body: putPriceTableSchema, response: priceTableAnswerSchema },
  'POST /api/costs/reprice': { body: repriceSchema, response: repriceAnswerSchema },
  'POST /api/costs/rebuild': {
    body: rebuildUsageSchema,
    response: z.object({ rows: z.number().int(), runs: z.number().int(), rebuilt_at: z.string() }),
  },
  'POST /api/agents/{agent}/resume-dispatch': { response: agentLimitsSchema.extend({ resumed: z.boolean() }) },
  'PATCH /api/projects/{id}': { body: updateProjectSchema, response: projectWithWorkflowSchema },
  'GET /api/tasks/all': { query: listAllTasksQuerySchema, response: taskSchema.array() },
  'GET /api/tasks/search': { query: taskSearchQuerySchema, response: z.object({ tasks: z.array(taskHitSchema) }) },
  'GET /api/tasks/{id}': { response: taskDetailSchema },
  'POST /api/tasks/{id}/archive': { response: taskSchema },
  'POST /api/tasks/{id}/restore': { response: taskSchema },
  'POST /api/tasks/{id}/move': { response: taskSchema },
  // {content} is the legacy markdown writer (200); anything else creates a task (201)
  'POST /api/tasks': { body: createTaskSchema, success: [201, 200], response: { 201: taskSchema } },
  'PATCH /api/tasks/{id}': { body: updateTaskSchema, response: taskSchema },
  'GET /api/views/agent': { query: agentQueueQuerySchema, response: agentQueueSchema },
  'GET /api/views/board': {
    query: boardQuerySchema,
    response: boardSchema.extend({ stuck: z.record(z.string(), boardStuckSchema).optional(), ...boardFirstTasksFieldsSchema.shape }),
  },
  'GET /api/views/board/as-of': { query: boardAsOfQuerySchema, response: boardSchema.extend({ as_of: z.date() }) },
  'GET /api/views/timeline': { query: timelineQuerySchema, response: timelineSchema },
  'POST /api/agent/claim': { body: claimSchema, response: taskSchema },
  'POST /api/agent/claim/renew': { response: taskSchema },
  'POST /api/agent/release': { body: releaseSchema, response: z.object({ released: z.literal(true) }) },
  'POST /api/agents/heartbeat': { body: heartbeatSchema, response: z.object({ ok: z.literal(true) }) },
  'GET /api/agents/status': { query: livenessQuerySchema, response: z.object({ agents: z.array(livenessEntrySchema) }) },
  'GET /api/blockers': { response: z.object({ blockers: z.array(blockerSchema) }) },
  'GET /api/sessions/active': { response: listOf('sessions', activeSessionSchema) },
  'GET /api/audit': { query: auditQuerySchema, response: z.array(auditRecordSchema) },
  'GET /api/costs/summary': { query: costSummaryQuerySchema, degrades: true, response: costSummarySchema },
  'GET /api/costs/rollup': { query: costRollupQuerySchema, degrades: true, response: costRollupSchema },
  'GET /api/budgets': {
    degrades: true,
    response: z.object({ available: z.literal(true), budgets: z.array(budgetViewSchema), timestamp: z.string() }),
  },
  'GET /api/actions/recent': { degrades: true, response: recentReceiptsSchema },
  'GET /api/actions/catalog': { response: actionCatalogSchema },
  'POST /api/restore/preview': { response: restorePreviewSchema },
  'POST /api/restore/apply': { response: restoreAppliedSchema },
  'GET /api/settings': { response: settingsSchema },
  'PATCH /api/settings': { response: settingsSchema },
  'PATCH /api/budgets/{id}': { body: updateBudgetSchema, degrades: true, response: budgetAnswerSchema },
  'GET /api/budgets/{id}/ledger': { query: ledgerQuerySchema, degrades: true, response: budgetLedgerSchema },
  // a repeated idempotency key answers the run it made (200)
  'POST /api/workflow-runs': { body: createRunSchema, success: [201, 200], response: createdRunSchema },
  'GET /api/workflow-runs': { query: listRunsQuerySchema, response: runListSchema },
  'GET /api/workflow-runs/pending': { query: pendingRunsQuerySchema, response: runListSchema },
  'GET /api/workflow-runs/active': { response: runListSchema },
  'GET /api/workflow-runs/stuck': { response: stuckRunsSchema },
  'GET /api/workflow-runs/dispatcher/stats': { response: dispatcherStatsSchema },
  'POST /api/workflow-runs/dispatcher/tick': { response: tickSummarySchema },
  // a run a budget's hard stop cancelled answers {stop: true, ...} to its heartbeats and completes
  'POST /api/workflow-runs/{id}/heartbeat': { response: z.union([runHeartbeatSchema, budgetStopSchema]) },
  'PATCH /api/workflow-runs/{id}/steps/{stepOrder}': { response: reportedStepSchema },
  'GET /api/blockers/summary': { response: blockerSummarySchema },
  'POST /api/sessions/{id}/heartbeat': { response: sessionHeartbeatSchema },
  'GET /api/agents/{agent}/bridge': { response: agentBridgeSchema },
  'GET /api/workflow-runs/{id}': { response: runDetailSchema },
  'PATCH /api/workflow-runs/{id}': { response: workflowRunSchema },
  'POST /api/workflow-runs/{id}/claim': { response: claimResultSchema },
  'POST /api/workflow-runs/{id}/complete': { response: z.union([workflowRunSchema, budgetStopSchema]) },
  'POST /api/workflow-runs/{id}/fail': { response: workflowRunSchema },
  'POST /api/workflow-runs/{id}/cancel': { response: workflowRunSchema },
  'POST /api/workflow-runs/{id}/override-failure': { response: workflowRunSchema },
  'POST /api/workflow-runs/{id}/pause': { response: workflowRunSchema },
  'POST /api/workflow-runs/{id}/resume': { response: workflowRunSchema },
  'POST /api/workflow-runs/{id}/reassign': { response: workflowRunSchema },
  'POST /api/workflow-runs/{id}/escalate': { response: workflowRunSchema },
  // the agent's start answers the run; the operator's start of a queued run adds how the wake went
  'POST /api/workflow-runs/{id}/start': { body: startRunSchema, response: z.union([operatorStartSchema, workflowRunSchema]) },
  'POST /api/workflow-runs/{id}/approvals': { body: requestApprovalSchema, success: [201], response: approvalAndRun },
  'POST /api/workflow-runs/{id}/artifacts': { body: registerArtifactSchema, success: [201], response: artifactSchema },
  'GET /api/approvals': { query: listApprovalsQuerySchema, response: listOf('approvals', approvalSchema) },
  'GET /api/approvals/pending': { query: pendingApprovalsQuerySchema, response: z.object({ approvals: z.array(approvalSchema) }) },
  'PATCH /api/approvals/{id}': { body: decideApprovalSchema, response: approvalAndRun },
  'POST /api/approvals/{id}/escalate': { body: escalateApprovalSchema, response: z.object({ approval: approvalSchema }) },
  'GET /api/artifacts': { query: listArtifactsQuerySchema, response: listOf('artifacts', artifactSchema) },
  'PATCH /api/artifacts/{id}': { body: updateArtifactSchema, response: artifactSchema },
  'DELETE /api/artifacts/{id}': { response: deleted('id') },
  'GET /api/agents/roster': { query: rosterQuerySchema, response: rosterSchema },
  'GET /api/settings/overview': { response: settingsOverviewSchema },
  'GET /api/views/runs': { query: runsViewQuerySchema, response: runsViewSchema },
  'GET /api/workflow-runs/{id}/page': { response: runPageSchema },
  'GET /api/rt/sessions/{sessionId}/search': { query: sessionSearchQuerySchema, response: sessionSearchSchema },
  'GET /api/budgets/burn-down': { degrades: true, response: burnDownsAnswerSchema },
  'GET /api/audit.csv': { query: auditCsvQuerySchema, contentType: 'text/csv' },
  'GET /api/restore/{restoreId}': { response: restoreStatusSchema },
};
