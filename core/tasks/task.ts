import * as z from 'zod';
import { jsonObjectSchema, uuidSchema, withAliases } from '../validation';
import { closedTaskStatuses, publicTaskStatuses, taskPriorities, taskStatuses, type TaskStatus } from './statuses';

export { closedTaskStatuses, publicTaskStatuses, taskPriorities, taskStatuses, type TaskStatus };

export const taskStatusSchema = z.enum(taskStatuses, { message: `must be one of ${taskStatuses.join(', ')}` });

export const taskPrioritySchema = z.enum(taskPriorities, { message: `must be one of ${taskPriorities.join(', ')}` });

/** A task as the API answers it (spec 01 Task); the OpenAPI document's task schema. */
export const taskSchema = z.object({
  id: z.string(),
  project_id: z.string(),
  title: z.string(),
  description: z.string(),
  status: taskStatusSchema,
  priority: taskPrioritySchema,
  owner: z.string().nullable(),
  due_date: z.date().nullable(),
  start_date: z.date().nullable(),
  estimated_effort: z.number().nullable(),
  actual_effort: z.number().nullable(),
  parent_task_id: z.string().nullable(),
  dependency_ids: z.array(z.string()),
  labels: z.array(z.string()),
  created_at: z.date(),
  updated_at: z.date(),
  completed_at: z.date().nullable(),
  recurrence_rule: z.string().nullable(),
  metadata: jsonObjectSchema,
  deleted_at: z.date().nullable(),
  archived_at: z.date().nullable(),
  locked_at: z.date().nullable(),
  locked_by: z.string().nullable(),
  retry_count: z.number().int(),
  status_updated_at: z.date().nullable(),
  active_workflow_run_id: z.string().nullable(),
  /** When the claim in locked_by lapses (null: no claim, or a claim without a lease). */
  lease_expires_at: z.date().nullable(),
  /** Fencing token: grows with every claim of the task, so a stale holder's renew or release is refused. */
  lock_token: z.number().int(),
});
export type Task = z.infer<typeof taskSchema>;

/**
 * The columns a revert or an import writes back, as the table names them: every column but the
 * claim's fencing token, which only ever grows (an old value written back would let a zombie
 * holder's token match again).
 */
export const taskStoredColumns =
  'id, project_id, title, description, status, priority, owner, due_date, start_date, estimated_effort, actual_effort, ' +
  'parent_task_id, dependency_ids, labels, created_at, updated_at, completed_at, recurrence_rule, metadata, deleted_at, ' +
  'archived_at, locked_at, locked_by, retry_count, status_updated_at, active_workflow_run_id, lease_expires_at';

/**
 * The columns every task query returns, in one place (the whole row, in table order). The fencing
 * token is stored as lock_generation, since snapshot redaction blanks any key named like *_token,
 * and answered as lock_token, the name clients know.
 */
export const taskColumns = `${taskStoredColumns}, lock_generation AS lock_token`;

/** A timestamp given as ISO 8601 date-time (with offset) or a plain YYYY-MM-DD date. */
export const timestampSchema = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()], { message: 'must be an ISO 8601 timestamp or YYYY-MM-DD date' })
  .transform((s) => new Date(s))
  .refine((d) => !Number.isNaN(d.getTime()) && d.getUTCFullYear() >= 1970 && d.getUTCFullYear() <= 9999, {
    message: 'must be a timestamp between years 1970 and 9999',
  });

const title = z.string().trim().min(1, 'must not be empty').max(500, 'at most 500 characters');
const owner = z.string().trim().min(1, 'must not be empty').max(200, 'at most 200 characters').nullable();
const effort = z.number().finite().min(0, 'must be at least 0').max(1_000_000).nullable();
const labels = z.array(z.string().trim().min(1).max(100)).max(100, 'at most 100 labels');
const dependencyIds = z.array(uuidSchema).max(500, 'at most 500 dependencies');

const writableFields = {
  project_id: uuidSchema,
  title,
  description: z.string().max(100_000),
  status: taskStatusSchema,
  priority: taskPrioritySchema,
  owner,
  due_date: timestampSchema.nullable(),
  start_date: timestampSchema.nullable(),
  estimated_effort: effort,
  actual_effort: effort,
  parent_task_id: uuidSchema.nullable(),
  dependency_ids: dependencyIds,
  labels,
  recurrence_rule: z.string().max(500).nullable(),
  metadata: jsonObjectSchema,
};

/**
 * The original front end's names (docs/api/original-front-end.md): `text` is the title when `title` is
 * absent; `category` is kept in `metadata.category`, and `null` (what its edit form sends for an
 * empty category) means no category.
 */
const clientNames = { text: 'title' } as const;
const category = z.string().trim().min(1, 'must not be empty').max(200, 'at most 200 characters').nullable();

/**
 * Where a task body's `category` goes: into metadata, over the metadata the body or the task has;
 * `null` takes the category out.
 */
export function metadataWithCategory(metadata: Record<string, unknown>, categoryValue: string | null | undefined): Record<string, unknown> {
  if (categoryValue === undefined) return metadata;
  if (categoryValue !== null) return { ...metadata, category: categoryValue };
  const { category: _dropped, ...rest } = metadata;
  return rest;
}

/** POST /api/tasks: a partial Task, project_id and title required; unknown fields are refused. */
export const createTaskSchema = withAliases(
  clientNames,
  z.strictObject({
    ...writableFields,
    category: category.optional(),
    description: writableFields.description.default(''),
    status: writableFields.status.default('backlog'),
    priority: writableFields.priority.default('medium'),
    owner: writableFields.owner.default(null),
    due_date: writableFields.due_date.default(null),
    start_date: writableFields.start_date.default(null),
    estimated_effort: effort.default(null),
    actual_effort: effort.default(null),
    parent_task_id: writableFields.parent_task_id.default(null),
    dependency_ids: dependencyIds.default([]),
    labels: labels.default([]),
    recurrence_rule: writableFields.recurrence_rule.default(null),
    metadata: jsonObjectSchema.default({}),
  }),
);
export type CreateTaskInput = z.infer<typeof createTaskSchema>;

/** PATCH /api/tasks/:id: any writable field, at least one; unknown fields and bad values are 400. */
export const updateTaskSchema = withAliases(
  clientNames,
  z
    .strictObject({ ...writableFields, category })
    .partial()
    .refine((patch) => Object.keys(patch).length > 0, { message: 'name at least one field to update' }),
);
export type UpdateTaskInput = z.infer<typeof updateTaskSchema>;

/** Who may hold a task's lock or own it: an agent name. */
export const agentNameSchema = z.string().trim().min(1, 'must not be empty').max(200, 'at most 200 characters');
