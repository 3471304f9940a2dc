import * as z from 'zod';
import { uuidSchema } from '../validation';

/** Spec 01 Saved view `filters`: exactly these keys, these values. */
export const viewFilterValues = ['all', 'pending', 'completed', 'archived', 'my_tasks', 'overdue', 'blocked', 'no_due_date'] as const;
export const viewSortValues = ['newest', 'oldest', 'updated', 'alpha'] as const;

const sortSchema = z.enum(viewSortValues, { message: `must be one of ${viewSortValues.join(', ')}` });

export const viewFiltersSchema = z.strictObject({
  filter: z.enum(viewFilterValues, { message: `must be one of ${viewFilterValues.join(', ')}` }).optional(),
  search: z.string().max(500, 'at most 500 characters').optional(),
  categoryFilter: z.string().max(200, 'at most 200 characters').optional(),
  sort: sortSchema.optional(),
});

/** A saved view as the API answers it. */
export const savedViewSchema = z.object({
  id: z.string(),
  project_id: z.string(),
  name: z.string(),
  filters: viewFiltersSchema,
  sort: z.string().nullable(),
  created_by: z.string(),
  created_at: z.date(),
  updated_at: z.date(),
});
export type SavedView = z.infer<typeof savedViewSchema>;

export const savedViewColumns = 'id, project_id, name, filters, sort, created_by, created_at, updated_at';

const name = z.string().trim().min(1, 'must not be empty').max(200, 'at most 200 characters');

export const createViewSchema = z.strictObject({
  project_id: uuidSchema.optional(),
  name,
  filters: viewFiltersSchema.default({}),
  sort: sortSchema.nullable().default(null),
  created_by: z.string().trim().min(1).max(200).optional(),
});

export const updateViewSchema = z
  .strictObject({ name, filters: viewFiltersSchema, sort: sortSchema.nullable() })
  .partial()
  .refine((p) => Object.keys(p).length > 0, { message: 'name at least one of name, filters, sort' });

export const listViewsQuerySchema = z.strictObject({ project_id: uuidSchema.optional() });
