import { agentRead, agentRunWork } from '../../core/auth/agent-rules';
import type { Route } from './route';

/** Workflow templates, runs, dispatcher, routing, approvals, artifacts, blockers, sessions, system scan, instrumentation (spec 03 and spec 01). */
export const workflowRoutes: readonly Route[] = [
  { method: 'GET', path: '/api/workflow-templates', handler: 'workflow-templates/list-workflow-templates', agent: agentRead },
  { method: 'POST', path: '/api/workflow-templates', handler: 'workflow-templates/create-workflow-template' },
  { method: 'GET', path: '/api/workflow-templates/:name', handler: 'workflow-templates/get-workflow-template', agent: agentRead },
  { method: 'PATCH', path: '/api/workflow-templates/:name', handler: 'workflow-templates/update-workflow-template' },

  { method: 'GET', path: '/api/workflow-runs', handler: 'workflow-runs/list-workflow-runs', agent: agentRead },
  { method: 'POST', path: '/api/workflow-runs', handler: 'workflow-runs/create-workflow-run' },
  { method: 'GET', path: '/api/workflow-runs/pending', handler: 'workflow-runs/list-pending-workflow-runs', agent: agentRead },
  { method: 'GET', path: '/api/workflow-runs/stuck', handler: 'workflow-runs/list-stuck-workflow-runs', agent: agentRead },
  { method: 'GET', path: '/api/workflow-runs/active', handler: 'workflow-runs/list-active-workflow-runs', agent: agentRead },
  { method: 'GET', path: '/api/workflow-runs/dispatcher/stats', handler: 'workflow-runs/get-dispatcher-stats', agent: agentRead },
  { method: 'POST', path: '/api/workflow-runs/dispatcher/tick', handler: 'workflow-runs/run-dispatcher-tick' },
  { method: 'GET', path: '/api/workflow-runs/:id', handler: 'workflow-runs/get-workflow-run', agent: agentRead },
  { method: 'PATCH', path: '/api/workflow-runs/:id', handler: 'workflow-runs/update-workflow-run', agent: agentRunWork },
  {
    method: 'POST',
    path: '/api/workflow-runs/:id/claim',
    handler: 'workflow-runs/claim-workflow-run',
    agent: { scope: 'agent', ownRun: 'id', actor: ['actor'], self: ['agent_id'] },
  },
  { method: 'POST', path: '/api/workflow-runs/:id/heartbeat', handler: 'workflow-runs/heartbeat-workflow-run', agent: agentRunWork },
  {
    method: 'POST',
    path: '/api/workflow-runs/:id/start',
    handler: 'workflow-runs/start-workflow-run',
    agent: { ...agentRunWork, required: ['session_id'] },
  },
  { method: 'POST', path: '/api/workflow-runs/:id/complete', handler: 'workflow-runs/complete-workflow-run', agent: agentRunWork },
  { method: 'POST', path: '/api/workflow-runs/:id/fail', handler: 'workflow-runs/fail-workflow-run', agent: agentRunWork },
  { method: 'PATCH', path: '/api/workflow-runs/:id/steps/:stepOrder', handler: 'workflow-runs/report-workflow-step', agent: agentRunWork },
  { method: 'POST', path: '/api/workflow-runs/:id/approvals', handler: 'workflow-runs/request-workflow-approval', agent: agentRunWork },
  { method: 'POST', path: '/api/workflow-runs/:id/artifacts', handler: 'workflow-runs/register-workflow-artifact', agent: agentRunWork },
  { method: 'POST', path: '/api/workflow-runs/:id/cancel', handler: 'workflow-runs/cancel-workflow-run' },
  { method: 'POST', path: '/api/workflow-runs/:id/override-failure', handler: 'workflow-runs/override-workflow-run-failure' },
  { method: 'POST', path: '/api/workflow-runs/:id/pause', handler: 'workflow-runs/pause-workflow-run' },
  { method: 'POST', path: '/api/workflow-runs/:id/resume', handler: 'workflow-runs/resume-workflow-run' },
  { method: 'POST', path: '/api/workflow-runs/:id/reassign', handler: 'workflow-runs/reassign-workflow-run' },
  { method: 'POST', path: '/api/workflow-runs/:id/escalate', handler: 'workflow-runs/escalate-workflow-run' },

  { method: 'GET', path: '/api/workflow-routing', handler: 'workflow-routing/list-workflow-routes' },
  { method: 'GET', path: '/api/workflow-routing/:workflowType', handler: 'workflow-routing/get-workflow-route' },
  { method: 'PUT', path: '/api/workflow-routing/:workflowType', handler: 'workflow-routing/put-workflow-route' },
  { method: 'DELETE', path: '/api/workflow-routing/:workflowType', handler: 'workflow-routing/delete-workflow-route' },

  { method: 'GET', path: '/api/approvals', handler: 'approvals/list-approvals' },
  { method: 'GET', path: '/api/approvals/pending', handler: 'approvals/list-pending-approvals' },
  { method: 'PATCH', path: '/api/approvals/:id', handler: 'approvals/decide-approval' },
  { method: 'POST', path: '/api/approvals/:id/escalate', handler: 'approvals/escalate-approval' },

  { method: 'GET', path: '/api/artifacts', handler: 'artifacts/list-artifacts' },
  { method: 'PATCH', path: '/api/artifacts/:id', handler: 'artifacts/update-artifact' },
  { method: 'DELETE', path: '/api/artifacts/:id', handler: 'artifacts/delete-artifact' },

  { method: 'GET', path: '/api/blockers', handler: 'blockers/list-blockers' },
  { method: 'GET', path: '/api/blockers/summary', handler: 'blockers/get-blocker-summary', agent: agentRead },
  { method: 'GET', path: '/api/sessions/active', handler: 'sessions/list-active-sessions' },
  { method: 'POST', path: '/api/sessions/:id/heartbeat', handler: 'sessions/record-session-heartbeat' },

  { method: 'POST', path: '/api/system-scan/run', handler: 'system-scan/run-system-scan' },
  { method: 'POST', path: '/api/system-scan/followup', handler: 'system-scan/send-system-scan-followup' },

  { method: 'POST', path: '/api/workflow-graph/events', handler: 'instrumentation/record-workflow-graph-event' },
  { method: 'GET', path: '/api/workflow-graph/usage-decision', handler: 'instrumentation/get-workflow-graph-usage-decision' },
  // the tool server reports its own telemetry whatever its token's scope
  { method: 'POST', path: '/api/mcp/telemetry', handler: 'instrumentation/record-mcp-telemetry', agent: agentRead },

  { method: 'GET', path: '/api/agents/:agent/bridge', handler: 'agents/get-agent-bridge', agent: { scope: 'agent', selfParam: 'agent' } },

  // the console's Runs screen and run page, each in one request (docs/console-api.md)
  { method: 'GET', path: '/api/views/runs', handler: 'views/get-runs-view' },
  { method: 'GET', path: '/api/workflow-runs/:id/page', handler: 'workflow-runs/get-workflow-run-page' },
];
