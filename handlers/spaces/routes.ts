import * as z from 'zod';
import { projectSchema } from '../../core/projects/project';
import { workspaceSchema } from '../../core/spaces/space';
import { counts } from '../openapi/report-schemas';
import type { Route } from '../route';

const byStatusTotals = z.object({ total: z.number().int(), by_status: counts });

const spaceStatsSchema = z.looseObject({
  workspace_id: z.string(),
  projects: byStatusTotals,
  tasks: byStatusTotals.extend({ open: z.number().int(), completed: z.number().int() }),
});

const spaceProjectsSchema = z.object({ projects: z.array(projectSchema) });

const assignedProjectsSchema = z.object({
  workspace_id: z.string(),
  project_ids: z.array(z.string()),
  assigned: z.array(z.string()),
  unassigned: z.array(z.string()),
});

/** Workspaces (spec 01). */
export const routes: readonly Route[] = [
  { method: 'GET', path: '/api/spaces', handler: 'spaces/list-spaces', response: z.object({ spaces: z.array(workspaceSchema) }) },
  { method: 'POST', path: '/api/spaces', handler: 'spaces/create-space', success: [201], response: workspaceSchema },
  { method: 'GET', path: '/api/spaces/:id', handler: 'spaces/get-space', response: workspaceSchema },
  { method: 'PUT', path: '/api/spaces/:id', handler: 'spaces/update-space', response: workspaceSchema },
  { method: 'DELETE', path: '/api/spaces/:id', handler: 'spaces/delete-space', response: z.object({ deleted: z.literal(true) }) },
  { method: 'POST', path: '/api/spaces/:id/duplicate', handler: 'spaces/duplicate-space', success: [201], response: workspaceSchema },
  { method: 'POST', path: '/api/spaces/:id/set-default', handler: 'spaces/set-default-space', response: workspaceSchema },
  { method: 'GET', path: '/api/spaces/:id/projects', handler: 'spaces/list-space-projects', response: spaceProjectsSchema },
  { method: 'PUT', path: '/api/spaces/:id/projects', handler: 'spaces/assign-space-projects', response: assignedProjectsSchema },
  { method: 'GET', path: '/api/spaces/:id/stats', handler: 'spaces/get-space-stats', response: spaceStatsSchema },
];
