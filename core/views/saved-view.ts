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

export interface SavedView {
  id: string;
  project_id: string;
  name: string;
  filters: z.infer<typeof viewFiltersSchema>;
  sort: string | null;
  created_by: string;
  created_at: Date;
  updated_at: Date;
}

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
