import * as z from 'zod';
import type { Project } from '../ports';
import type { SameShape } from '../same-shape';
import { jsonObjectSchema, uuidSchema } from '../validation';

export const projectStatuses = ['active', 'paused', 'archived'] as const;
export const projectStatusSchema = z.enum(projectStatuses);

export const projectSchema = z.object({
  id: uuidSchema,
  name: z.string(),
  description: z.string(),
  status: projectStatusSchema,
  tags: z.array(z.string()),
  default_workflow_id: uuidSchema.nullable(),
  metadata: jsonObjectSchema,
  qmd_project_namespace: z.string().nullable(),
  workspace_id: uuidSchema.nullable(),
  created_at: z.date(),
  updated_at: z.date(),
});
export type { Project };
const projectMatchesPort: SameShape<z.infer<typeof projectSchema>, Project> = true;
void projectMatchesPort;

const name = z.string().trim().min(1, 'must not be empty').max(200, 'at most 200 characters');
const tags = z.array(z.string().trim().min(1).max(100)).max(100, 'at most 100 tags');

/** POST /api/projects: a partial Project without id and timestamps; unknown fields are refused. */
export const createProjectSchema = z.strictObject({
  name,
  description: z.string().max(10_000).default(''),
  status: projectStatusSchema.default('active'),
  tags: tags.default([]),
  default_workflow_id: uuidSchema.nullable().default(null),
  metadata: jsonObjectSchema.default({}),
  qmd_project_namespace: z.string().max(200).nullable().default(null),
});
export type CreateProjectInput = z.infer<typeof createProjectSchema>;

/** PATCH /api/projects/:id: any writable field, at least one. */
export const updateProjectSchema = z
  .strictObject({
    name,
    description: z.string().max(10_000),
    status: projectStatusSchema,
    tags,
    default_workflow_id: uuidSchema.nullable(),
    metadata: jsonObjectSchema,
    qmd_project_namespace: z.string().max(200).nullable(),
  })
  .partial()
  .refine((patch) => Object.keys(patch).length > 0, { message: 'name at least one field to update' });
export type UpdateProjectInput = z.infer<typeof updateProjectSchema>;

/** The columns every project query returns, in one place. */
export const projectColumns =
  'id, name, description, status, tags, default_workflow_id, metadata, qmd_project_namespace, workspace_id, created_at, updated_at';
