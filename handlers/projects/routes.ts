import * as z from 'zod';
import { agentRead } from '../../core/auth/agent-rules';
import { createProjectSchema, projectSchema, updateProjectSchema } from '../../core/projects/project';
import { listProjectsQuerySchema, projectWithWorkflowSchema } from '../../core/projects/queries';
import { counts, deleted } from '../openapi/report-schemas';
import type { Route } from '../route';

const defaultProjectSchema = projectWithWorkflowSchema.extend({
  task_counts: z.object({ total: z.number().int(), open: z.number().int(), completed: z.number().int(), by_status: counts }),
});

/** Projects (the foundation issue). */
export const routes: readonly Route[] = [
  {
    method: 'GET',
    path: '/api/projects',
    handler: 'projects/list-projects',
    agent: agentRead,
    query: listProjectsQuerySchema,
    response: projectSchema.array(),
  },
  {
    method: 'POST',
    path: '/api/projects',
    handler: 'projects/create-project',
    success: [201],
    body: createProjectSchema,
    response: projectWithWorkflowSchema,
  },
  {
    method: 'GET',
    path: '/api/projects/default',
    handler: 'projects/get-default-project',
    agent: agentRead,
    response: defaultProjectSchema,
  },
  { method: 'GET', path: '/api/projects/:id', handler: 'projects/get-project', agent: agentRead, response: projectWithWorkflowSchema },
  {
    method: 'PATCH',
    path: '/api/projects/:id',
    handler: 'projects/update-project',
    body: updateProjectSchema,
    response: projectWithWorkflowSchema,
  },
  { method: 'DELETE', path: '/api/projects/:id', handler: 'projects/delete-project', response: deleted('id') },
];
