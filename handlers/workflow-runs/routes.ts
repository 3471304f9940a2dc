import * as z from 'zod';
import { agentRead, agentRunWork } from '../../core/auth/agent-rules';
import { approvalAndRunSchema, requestApprovalSchema } from '../../core/workflows/approvals';
import { artifactSchema, registerArtifactSchema } from '../../core/workflows/artifacts';
import {
  createRunSchema,
  listRunsQuerySchema,
  pendingRunsQuerySchema,
  runListSchema,
  startRunSchema,
  workflowRunSchema,
} from '../../core/workflows/run';
import { claimResultSchema } from '../../core/workflows/run-claim';
import { createdRunSchema } from '../../core/workflows/run-create';
import { runPageSchema } from '../../core/workflows/run-page';
import { runDetailSchema } from '../../core/workflows/run-queries';
import { budgetStopSchema, operatorStartSchema } from '../../core/workflows/run-session-reports';
import { anyObject, counts } from '../openapi/report-schemas';
import type { Route } from '../route';

const stuckRunsSchema = z.object({
  runs: z.array(workflowRunSchema.extend({ stuck_reason: z.string() })),
  total: z.number().int(),
  truncated: z.boolean(),
});

/** The tick's summary: its counts by phase; budgetEnforcement and capped carry one count per rule. */
const tickSummarySchema = z.looseObject({
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

const dispatcherStatsSchema = z.object({
  queue: counts,
  failure_rate: z.object({ window_hours: z.number(), finished: z.number().int(), failed: z.number().int(), rate: z.number().nullable() }),
  route_count: z.number().int(),
  last_tick: z.object({ started_at: z.date(), finished_at: z.date(), source: z.string(), duration_ms: z.number() }).nullable(),
  last_tick_summary: tickSummarySchema.nullable(),
  ticks_last_hour: z.number().int(),
  capped: counts,
  paused_agents: z.array(z.object({ agent_id: z.string(), dispatch_paused_until: z.date(), pause_reason: z.string().nullable() })),
});

const runHeartbeatSchema = z.object({ ok: z.literal(true), run_id: z.string(), status: z.string(), heartbeat_at: z.date() });
const reportedStepSchema = z.object({ step: anyObject, run: workflowRunSchema });

/** Workflow runs and the dispatcher (spec 03); the console's run page (docs/console-api.md). */
export const routes: readonly Route[] = [
  {
    method: 'GET',
    path: '/api/workflow-runs',
    handler: 'workflow-runs/list-workflow-runs',
    agent: agentRead,
    query: listRunsQuerySchema,
    response: runListSchema,
  },
  // a repeated idempotency key answers the run it made (200)
  {
    method: 'POST',
    path: '/api/workflow-runs',
    handler: 'workflow-runs/create-workflow-run',
    success: [201, 200],
    body: createRunSchema,
    response: createdRunSchema,
  },
  {
    method: 'GET',
    path: '/api/workflow-runs/pending',
    handler: 'workflow-runs/list-pending-workflow-runs',
    agent: agentRead,
    query: pendingRunsQuerySchema,
    response: runListSchema,
  },
  {
    method: 'GET',
    path: '/api/workflow-runs/stuck',
    handler: 'workflow-runs/list-stuck-workflow-runs',
    agent: agentRead,
    response: stuckRunsSchema,
  },
  {
    method: 'GET',
    path: '/api/workflow-runs/active',
    handler: 'workflow-runs/list-active-workflow-runs',
    agent: agentRead,
    response: runListSchema,
  },
  {
    method: 'GET',
    path: '/api/workflow-runs/dispatcher/stats',
    handler: 'workflow-runs/get-dispatcher-stats',
    agent: agentRead,
    response: dispatcherStatsSchema,
  },
  { method: 'POST', path: '/api/workflow-runs/dispatcher/tick', handler: 'workflow-runs/run-dispatcher-tick', response: tickSummarySchema },
  { method: 'GET', path: '/api/workflow-runs/:id', handler: 'workflow-runs/get-workflow-run', agent: agentRead, response: runDetailSchema },
  {
    method: 'PATCH',
    path: '/api/workflow-runs/:id',
    handler: 'workflow-runs/update-workflow-run',
    agent: agentRunWork,
    response: workflowRunSchema,
  },
  {
    method: 'POST',
    path: '/api/workflow-runs/:id/claim',
    handler: 'workflow-runs/claim-workflow-run',
    agent: { scope: 'agent', ownRun: 'id', actor: ['actor'], self: ['agent_id'] },
    response: claimResultSchema,
  },
  // a run a budget's hard stop cancelled answers {stop: true, ...} to its heartbeats and completes
  {
    method: 'POST',
    path: '/api/workflow-runs/:id/heartbeat',
    handler: 'workflow-runs/heartbeat-workflow-run',
    agent: agentRunWork,
    response: z.union([runHeartbeatSchema, budgetStopSchema]),
  },
  // the agent's start answers the run; the operator's start of a queued run adds how the wake went
  {
    method: 'POST',
    path: '/api/workflow-runs/:id/start',
    handler: 'workflow-runs/start-workflow-run',
    agent: { ...agentRunWork, required: ['session_id'] },
    body: startRunSchema,
    response: z.union([operatorStartSchema, workflowRunSchema]),
  },
  {
    method: 'POST',
    path: '/api/workflow-runs/:id/complete',
    handler: 'workflow-runs/complete-workflow-run',
    agent: agentRunWork,
    response: z.union([workflowRunSchema, budgetStopSchema]),
  },
  {
    method: 'POST',
    path: '/api/workflow-runs/:id/fail',
    handler: 'workflow-runs/fail-workflow-run',
    agent: agentRunWork,
    response: workflowRunSchema,
  },
  {
    method: 'PATCH',
    path: '/api/workflow-runs/:id/steps/:stepOrder',
    handler: 'workflow-runs/report-workflow-step',
    agent: agentRunWork,
    response: reportedStepSchema,
  },
  {
    method: 'POST',
    path: '/api/workflow-runs/:id/approvals',
    handler: 'workflow-runs/request-workflow-approval',
    agent: agentRunWork,
    success: [201],
    body: requestApprovalSchema,
    response: approvalAndRunSchema,
  },
  {
    method: 'POST',
    path: '/api/workflow-runs/:id/artifacts',
    handler: 'workflow-runs/register-workflow-artifact',
    agent: agentRunWork,
    success: [201],
    body: registerArtifactSchema,
    response: artifactSchema,
  },
  { method: 'POST', path: '/api/workflow-runs/:id/cancel', handler: 'workflow-runs/cancel-workflow-run', response: workflowRunSchema },
  {
    method: 'POST',
    path: '/api/workflow-runs/:id/override-failure',
    handler: 'workflow-runs/override-workflow-run-failure',
    response: workflowRunSchema,
  },
  { method: 'POST', path: '/api/workflow-runs/:id/pause', handler: 'workflow-runs/pause-workflow-run', response: workflowRunSchema },
  { method: 'POST', path: '/api/workflow-runs/:id/resume', handler: 'workflow-runs/resume-workflow-run', response: workflowRunSchema },
  { method: 'POST', path: '/api/workflow-runs/:id/reassign', handler: 'workflow-runs/reassign-workflow-run', response: workflowRunSchema },
  { method: 'POST', path: '/api/workflow-runs/:id/escalate', handler: 'workflow-runs/escalate-workflow-run', response: workflowRunSchema },
  { method: 'GET', path: '/api/workflow-runs/:id/page', handler: 'workflow-runs/get-workflow-run-page', response: runPageSchema },
];
