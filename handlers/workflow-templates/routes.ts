import * as z from 'zod';
import { agentRead } from '../../core/auth/agent-rules';
import { workflowTemplateSchema } from '../../core/workflows/template';
import type { Route } from '../route';

/** Workflow templates (spec 03). */
export const routes: readonly Route[] = [
  {
    method: 'GET',
    path: '/api/workflow-templates',
    handler: 'workflow-templates/list-workflow-templates',
    agent: agentRead,
    response: z.object({ templates: z.array(workflowTemplateSchema) }),
  },
  {
    method: 'POST',
    path: '/api/workflow-templates',
    handler: 'workflow-templates/create-workflow-template',
    success: [201],
    response: workflowTemplateSchema,
  },
  {
    method: 'GET',
    path: '/api/workflow-templates/:name',
    handler: 'workflow-templates/get-workflow-template',
    agent: agentRead,
    response: workflowTemplateSchema,
  },
  {
    method: 'PATCH',
    path: '/api/workflow-templates/:name',
    handler: 'workflow-templates/update-workflow-template',
    response: workflowTemplateSchema,
  },
];
