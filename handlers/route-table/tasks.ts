import type { Route } from './route';

/** Tasks, views, agents, audit, history, legacy export/import, workspaces, org summary (spec 01). */
export const taskRoutes: readonly Route[] = [
  { method: 'GET', path: '/api/tasks', handler: 'tasks/get-legacy-tasks' },
  { method: 'POST', path: '/api/tasks', handler: 'tasks/create-task' },
  { method: 'GET', path: '/api/tasks/all', handler: 'tasks/list-all-tasks' },
  { method: 'GET', path: '/api/tasks/:id', handler: 'tasks/get-task' },
  { method: 'PATCH', path: '/api/tasks/:id', handler: 'tasks/update-task' },
  { method: 'DELETE', path: '/api/tasks/:id', handler: 'tasks/delete-task' },
  { method: 'POST', path: '/api/tasks/:id/archive', handler: 'tasks/archive-task' },
  { method: 'POST', path: '/api/tasks/:id/restore', handler: 'tasks/restore-task' },
  { method: 'POST', path: '/api/tasks/:id/move', handler: 'tasks/move-task' },
  { method: 'POST', path: '/api/tasks/:id/dependencies', handler: 'tasks/change-task-dependencies' },
  { method: 'POST', path: '/api/tasks/:id/subtasks', handler: 'tasks/link-subtask' },
  { method: 'GET', path: '/api/tasks/:id/history', handler: 'tasks/get-task-history' },
  { method: 'POST', path: '/api/tasks/:id/retry', handler: 'tasks/retry-task' },
  { method: 'GET', path: '/api/task-options', handler: 'task-options/get-task-options' },

  { method: 'GET', path: '/api/views', handler: 'views/list-views' },
  { method: 'POST', path: '/api/views', handler: 'views/create-view' },
  { method: 'GET', path: '/api/views/board', handler: 'views/get-board-view' },
  { method: 'GET', path: '/api/views/timeline', handler: 'views/get-timeline-view' },
  { method: 'GET', path: '/api/views/agent', handler: 'views/get-agent-queue-view' },
  { method: 'GET', path: '/api/views/:id', handler: 'views/get-view' },
  { method: 'PATCH', path: '/api/views/:id', handler: 'views/update-view' },
  { method: 'DELETE', path: '/api/views/:id', handler: 'views/delete-view' },

  { method: 'POST', path: '/api/agent/claim', handler: 'agents/claim-task' },
  { method: 'POST', path: '/api/agent/release', handler: 'agents/release-task' },
  { method: 'POST', path: '/api/agents/heartbeat', handler: 'agents/record-heartbeat' },
  { method: 'GET', path: '/api/agents/status', handler: 'agents/list-agent-status' },

  { method: 'GET', path: '/api/audit', handler: 'audit/list-audit' },
  { method: 'GET', path: '/api/history', handler: 'history/list-history' },
  { method: 'GET', path: '/api/history/:taskId', handler: 'history/list-task-history' },
  { method: 'GET', path: '/api/history/:taskId/snapshot', handler: 'history/get-task-snapshot' },
  { method: 'GET', path: '/api/history/:taskId/diff', handler: 'history/get-task-diff' },
  { method: 'GET', path: '/api/state-snapshots', handler: 'history/list-state-snapshots' },
  { method: 'GET', path: '/api/snapshots/:entityType/:entityId', handler: 'history/list-entity-snapshots' },
  { method: 'POST', path: '/api/snapshots/:snapshotId/preview-revert', handler: 'history/preview-snapshot-revert' },
  { method: 'POST', path: '/api/snapshots/:snapshotId/revert', handler: 'history/revert-snapshot' },
];
