import * as z from 'zod';
import { jsonObjectSchema, uuidSchema } from '../validation';

/** A workspace (space) as the API answers it. */
export const workspaceSchema = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  icon: z.string().nullable(),
  color: z.string().nullable(),
  description: z.string(),
  settings: z.record(z.string(), z.unknown()),
  sort_order: z.number().int(),
  is_default: z.boolean(),
  created_at: z.date(),
  updated_at: z.date(),
});
export type Workspace = z.infer<typeof workspaceSchema>;

export const workspaceColumns = 'id, name, slug, icon, color, description, settings, sort_order, is_default, created_at, updated_at';

export const slugSchema = z
  .string()
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be lower-case letters, digits and single dashes')
  .max(64, 'at most 64 characters');

const name = z.string().trim().min(1, 'must not be empty').max(200, 'at most 200 characters');
const fields = {
  name,
  slug: slugSchema,
  icon: z.string().max(100).nullable(),
  color: z.string().max(40).nullable(),
  description: z.string().max(10_000),
  settings: jsonObjectSchema,
};

export const createSpaceSchema = z.strictObject({
  name,
  slug: slugSchema.optional(),
  icon: fields.icon.default(null),
  color: fields.color.default(null),
  description: fields.description.default(''),
  settings: jsonObjectSchema.default({}),
});

export const updateSpaceSchema = z
  .strictObject({ ...fields, sort_order: z.number().int().min(-1_000_000).max(1_000_000), is_default: z.boolean() })
  .partial()
  .refine((p) => Object.keys(p).length > 0, { message: 'name at least one field to update' });

export const duplicateSpaceSchema = z.strictObject({ slug: slugSchema.optional() });

export const assignProjectsSchema = z.strictObject({ project_ids: z.array(uuidSchema).max(1000, 'at most 1000 projects') });

/** A slug from a name: lower-case words joined by dashes ("Ops & Infra" -> "ops-infra"). */
export function slugFrom(text: string): string {
  const slug = text
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 56)
    .replace(/-+$/, '');
  return slug || 'workspace';
}
