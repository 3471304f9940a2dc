import * as z from 'zod';
import { auditRecordSchema } from '../../core/audit/audit-record';
import { agentRead } from '../../core/auth/agent-rules';
import { listAllTasksQuerySchema, taskDetailSchema } from '../../core/tasks/queries';
import { taskHitSchema, taskSearchQuerySchema } from '../../core/tasks/search';
import { createTaskSchema, taskSchema, updateTaskSchema } from '../../core/tasks/task';
import { deleted } from '../openapi/report-schemas';
import type { Route } from '../route';

const legacyTasksSchema = z.object({ content: z.string(), path: z.string(), format: z.literal('markdown') });
const retriedTaskSchema = z.object({ retried: z.literal(true), retry_count: z.number().int(), task: taskSchema });
const dependenciesSchema = z.object({ dependencies: z.array(z.string()) });
const taskSessionsSchema = z.object({
  taskId: z.string(),
  sessions: z.array(z.looseObject({ runId: z.string(), sessionKey: z.string().nullable() })),
});

/** Tasks (spec 01), the legacy markdown reader and writer, and a task's runtime sessions. */
export const routes: readonly Route[] = [
  { method: 'GET', path: '/api/tasks', handler: 'tasks/get-legacy-tasks', agent: agentRead, response: legacyTasksSchema },
  // {content} is the legacy markdown writer (200); anything else creates a task (201)
  {
    method: 'POST',
    path: '/api/tasks',
    handler: 'tasks/create-task',
    success: [201, 200],
    body: createTaskSchema,
    response: { 201: taskSchema },
  },
  {
    method: 'GET',
    path: '/api/tasks/all',
    handler: 'tasks/list-all-tasks',
    agent: agentRead,
    query: listAllTasksQuerySchema,
    response: taskSchema.array(),
  },
  {
    method: 'GET',
    path: '/api/tasks/search',
    handler: 'tasks/search-tasks',
    query: taskSearchQuerySchema,
    response: z.object({ tasks: z.array(taskHitSchema) }),
  },
  { method: 'GET', path: '/api/tasks/:id', handler: 'tasks/get-task', agent: agentRead, response: taskDetailSchema },
  { method: 'PATCH', path: '/api/tasks/:id', handler: 'tasks/update-task', body: updateTaskSchema, response: taskSchema },
  { method: 'DELETE', path: '/api/tasks/:id', handler: 'tasks/delete-task', response: deleted('id') },
  { method: 'POST', path: '/api/tasks/:id/archive', handler: 'tasks/archive-task', response: taskSchema },
  { method: 'POST', path: '/api/tasks/:id/restore', handler: 'tasks/restore-task', response: taskSchema },
  { method: 'POST', path: '/api/tasks/:id/move', handler: 'tasks/move-task', response: taskSchema },
  { method: 'POST', path: '/api/tasks/:id/dependencies', handler: 'tasks/change-task-dependencies', response: dependenciesSchema },
  { method: 'POST', path: '/api/tasks/:id/subtasks', handler: 'tasks/link-subtask', response: taskDetailSchema },
  {
    method: 'GET',
    path: '/api/tasks/:id/history',
    handler: 'tasks/get-task-history',
    response: z.object({ task_id: z.string(), history: z.array(auditRecordSchema) }),
  },
  { method: 'POST', path: '/api/tasks/:id/retry', handler: 'tasks/retry-task', response: retriedTaskSchema },

  { method: 'GET', path: '/api/tasks/:id/sessions', handler: 'tasks/list-task-sessions', response: taskSessionsSchema },
];
