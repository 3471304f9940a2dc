import * as z from 'zod';
import { projectWithWorkflowSchema } from '../../core/projects/queries';
import { taskSchema } from '../../core/tasks/task';
import { agentQueueQuerySchema } from '../../core/views/agent-queue';
import { boardFirstTasksFieldsSchema, boardQuerySchema } from '../../core/views/board';
import { boardAsOfQuerySchema } from '../../core/views/board-as-of';
import { boardStuckSchema } from '../../core/views/board-stuck';
import { savedViewSchema } from '../../core/views/saved-view';
import { timelineQuerySchema } from '../../core/views/timeline';
import { runsViewQuerySchema, runsViewSchema } from '../../core/workflows/runs-view';
import { deleted } from '../openapi/report-schemas';
import type { Route } from '../route';

const boardSchema = z.object({
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

const timelineSchema = z.object({
  project: projectWithWorkflowSchema.omit({ default_workflow: true }),
  tasks: z.array(timelineEntrySchema),
  range: z.looseObject({}),
});

const paginationSchema = z.object({ page: z.number().int(), limit: z.number().int(), total: z.number().int(), pages: z.number().int() });
const agentQueueSchema = z.object({ agent: z.string(), tasks: z.array(taskSchema), pagination: paginationSchema });

/**
 * Saved views, the board, the timeline and an agent's queue (spec 01); the console's Runs screen
 * (docs/console-api.md).
 */
export const routes: readonly Route[] = [
  { method: 'GET', path: '/api/views', handler: 'views/list-views', response: z.array(savedViewSchema) },
  { method: 'POST', path: '/api/views', handler: 'views/create-view', success: [201], response: savedViewSchema },
  {
    method: 'GET',
    path: '/api/views/board',
    handler: 'views/get-board-view',
    query: boardQuerySchema,
    response: boardSchema.extend({ stuck: z.record(z.string(), boardStuckSchema).optional(), ...boardFirstTasksFieldsSchema.shape }),
  },
  {
    method: 'GET',
    path: '/api/views/board/as-of',
    handler: 'views/get-board-as-of',
    query: boardAsOfQuerySchema,
    response: boardSchema.extend({ as_of: z.date() }),
  },
  { method: 'GET', path: '/api/views/timeline', handler: 'views/get-timeline-view', query: timelineQuerySchema, response: timelineSchema },
  {
    method: 'GET',
    path: '/api/views/agent',
    handler: 'views/get-agent-queue-view',
    query: agentQueueQuerySchema,
    response: agentQueueSchema,
  },
  { method: 'GET', path: '/api/views/:id', handler: 'views/get-view', response: savedViewSchema },
  { method: 'PATCH', path: '/api/views/:id', handler: 'views/update-view', response: savedViewSchema },
  { method: 'DELETE', path: '/api/views/:id', handler: 'views/delete-view', response: deleted('id') },

  // the console's Runs screen and run page, each in one request (docs/console-api.md)
  { method: 'GET', path: '/api/views/runs', handler: 'views/get-runs-view', query: runsViewQuerySchema, response: runsViewSchema },
];
