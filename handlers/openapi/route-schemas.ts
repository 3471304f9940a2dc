import type * as z from 'zod';
import { auditQuerySchema } from '../../core/audit/list-audit';
import { createBudgetSchema, updateBudgetSchema } from '../../core/budgets/budget';
import { ledgerQuerySchema } from '../../core/budgets/queries';
import { costRollupQuerySchema } from '../../core/costs/rollup';
import { costSummaryQuerySchema } from '../../core/costs/summary';
import { createProjectSchema, projectSchema, updateProjectSchema } from '../../core/projects/project';
import { listProjectsQuerySchema } from '../../core/projects/queries';
import { listAllTasksQuerySchema } from '../../core/tasks/queries';
import { createTaskSchema, updateTaskSchema } from '../../core/tasks/task';
import { agentQueueQuerySchema } from '../../core/views/agent-queue';
import { projectQuerySchema } from '../../core/views/board';
import { timelineQuerySchema } from '../../core/views/timeline';
import { heartbeatSchema, livenessQuerySchema } from '../../core/agents/liveness';
import { claimSchema, releaseSchema } from '../../core/agents/locks';
import { decideApprovalSchema, escalateApprovalSchema, listApprovalsQuerySchema, pendingApprovalsQuerySchema, requestApprovalSchema } from '../../core/workflows/approvals';
import { listArtifactsQuerySchema, registerArtifactSchema, updateArtifactSchema } from '../../core/workflows/artifacts';
import { createRunSchema, startRunSchema } from '../../core/workflows/run';

/** What the OpenAPI document knows of a route beyond its path: the zod schemas its use case parses with. */
export interface RouteSchemas {
  query?: z.ZodType;
  body?: z.ZodType;
  /** The success body, where core has a schema for it. */
  response?: z.ZodType;
}

/**
 * Schemas by route key. A route without an entry still appears in the document, with its path
 * parameters and a generic body, so a new route never needs an edit here to be listed.
 */
export const routeSchemas: Readonly<Record<string, RouteSchemas>> = {
  'GET /api/projects': { query: listProjectsQuerySchema, response: projectSchema.array() },
  'POST /api/projects': { body: createProjectSchema, response: projectSchema },
  'PATCH /api/projects/{id}': { body: updateProjectSchema },
  'GET /api/tasks/all': { query: listAllTasksQuerySchema },
  'POST /api/tasks': { body: createTaskSchema },
  'PATCH /api/tasks/{id}': { body: updateTaskSchema },
  'GET /api/views/agent': { query: agentQueueQuerySchema },
  'GET /api/views/board': { query: projectQuerySchema },
  'GET /api/views/timeline': { query: timelineQuerySchema },
  'POST /api/agent/claim': { body: claimSchema },
  'POST /api/agent/release': { body: releaseSchema },
  'POST /api/agents/heartbeat': { body: heartbeatSchema },
  'GET /api/agents/status': { query: livenessQuerySchema },
  'GET /api/audit': { query: auditQuerySchema },
  'GET /api/costs/summary': { query: costSummaryQuerySchema },
  'GET /api/costs/rollup': { query: costRollupQuerySchema },
  'POST /api/budgets': { body: createBudgetSchema },
  'PATCH /api/budgets/{id}': { body: updateBudgetSchema },
  'GET /api/budgets/{id}/ledger': { query: ledgerQuerySchema },
  'POST /api/workflow-runs': { body: createRunSchema },
  'POST /api/workflow-runs/{id}/start': { body: startRunSchema },
  'POST /api/workflow-runs/{id}/approvals': { body: requestApprovalSchema },
  'POST /api/workflow-runs/{id}/artifacts': { body: registerArtifactSchema },
  'GET /api/approvals': { query: listApprovalsQuerySchema },
  'GET /api/approvals/pending': { query: pendingApprovalsQuerySchema },
  'PATCH /api/approvals/{id}': { body: decideApprovalSchema },
  'POST /api/approvals/{id}/escalate': { body: escalateApprovalSchema },
  'GET /api/artifacts': { query: listArtifactsQuerySchema },
  'PATCH /api/artifacts/{id}': { body: updateArtifactSchema },
};
