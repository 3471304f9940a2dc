import * as z from 'zod';
import { routeSchema } from '../../core/workflows/routing';
import { deleted } from '../openapi/report-schemas';
import type { Route } from '../route';

/** Workflow routing: which agent takes a workflow type (spec 03). */
export const routes: readonly Route[] = [
  {
    method: 'GET',
    path: '/api/workflow-routing',
    handler: 'workflow-routing/list-workflow-routes',
    response: z.object({ routes: z.array(routeSchema) }),
  },
  { method: 'GET', path: '/api/workflow-routing/:workflowType', handler: 'workflow-routing/get-workflow-route', response: routeSchema },
  { method: 'PUT', path: '/api/workflow-routing/:workflowType', handler: 'workflow-routing/put-workflow-route', response: routeSchema },
  {
    method: 'DELETE',
    path: '/api/workflow-routing/:workflowType',
    handler: 'workflow-routing/delete-workflow-route',
    response: deleted('workflow_type'),
  },
];
