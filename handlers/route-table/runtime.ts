import { agentRead } from '../../core/auth/agent-rules';
import type { Route } from './route';

/**
 * Agent-runtime proxies, scheduled jobs, session reader, task sessions, chat, citation queue (spec 01).
 * GET /api/cron-admin/jobs is not here: the cron-manager server (infra/cron-manager) serves it on
 * its own port.
 */
export const runtimeRoutes: readonly Route[] = [
  { method: 'GET', path: '/api/runtime/health', handler: 'runtime/get-runtime-health' },
  { method: 'GET', path: '/api/runtime/tasks', handler: 'runtime/list-runtime-tasks' },
  { method: 'GET', path: '/api/runtime/tasks/audit', handler: 'runtime/get-runtime-task-audit' },
  { method: 'GET', path: '/api/runtime/agents', handler: 'runtime/list-runtime-agents', agent: agentRead },
  { method: 'POST', path: '/api/runtime/memory/index', handler: 'runtime/index-runtime-memory' },
  { method: 'GET', path: '/api/runtime/memory/promote', handler: 'runtime/list-promotion-candidates' },
  { method: 'POST', path: '/api/runtime/memory/promote', handler: 'runtime/promote-runtime-memory' },

  { method: 'GET', path: '/api/cron/jobs', handler: 'cron/list-cron-jobs', agent: agentRead },
  { method: 'POST', path: '/api/cron/jobs', handler: 'cron/create-cron-job' },
  { method: 'DELETE', path: '/api/cron/jobs/:id', handler: 'cron/delete-cron-job' },
  { method: 'GET', path: '/api/cron/jobs/:id/runs', handler: 'cron/list-job-runs' },
  { method: 'POST', path: '/api/cron/jobs/:id/run', handler: 'cron/run-cron-job' },
  { method: 'POST', path: '/api/cron/jobs/:id/enable', handler: 'cron/enable-cron-job' },
  { method: 'POST', path: '/api/cron/jobs/:id/disable', handler: 'cron/disable-cron-job' },

  { method: 'GET', path: '/api/rt/agents', handler: 'rt/list-agents' },
  { method: 'GET', path: '/api/rt/sessions', handler: 'rt/list-sessions' },
  { method: 'GET', path: '/api/rt/sessions/:sessionId', handler: 'rt/get-session' },
  { method: 'GET', path: '/api/rt/sessions/:sessionId/messages', handler: 'rt/list-session-messages' },
  { method: 'GET', path: '/api/rt/sessions/:sessionId/events', handler: 'rt/list-session-events' },
  { method: 'GET', path: '/api/rt/sessions/:sessionId/events/:line', handler: 'rt/get-session-event' },

  { method: 'GET', path: '/api/tasks/:id/sessions', handler: 'tasks/list-task-sessions' },
  { method: 'POST', path: '/api/agent/chat', handler: 'chat/send-chat-message' },
  { method: 'GET', path: '/api/agent/chat/history', handler: 'chat/get-chat-history' },

  { method: 'GET', path: '/api/citation-queue/status', handler: 'citation-queue/get-citation-status' },

  { method: 'GET', path: '/api/rt/sessions/:sessionId/search', handler: 'rt/search-session' },
];
