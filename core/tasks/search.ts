import * as z from 'zod';
import type { Deps } from '../ports';
import { queryInt, parseQuery } from '../query-params';
import { requireDb } from '../storage';
import { selectProject } from '../views/project-selection';
import { uuidSchema } from '../validation';
import { taskPrioritySchema, taskStatusSchema } from './task';

export const taskSearchQuerySchema = z.strictObject({
  q: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
  limit: queryInt(1, 50).default(20),
  project_id: uuidSchema.optional(),
});

/** One task found by GET /api/tasks/search: what a palette shows and needs to open it. */
export const taskHitSchema = z.object({
  id: z.string(),
  title: z.string(),
  status: taskStatusSchema,
  priority: taskPrioritySchema,
  owner: z.string().nullable(),
  project_id: z.string(),
  project_name: z.string(),
  updated_at: z.date(),
});
export type TaskHit = z.infer<typeof taskHitSchema>;

/** `q` as a LIKE pattern matching it anywhere: its own `%`, `_` and `\` stand for themselves. */
function containsPattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The search over titles. `title ILIKE` is answered by the trigram index tasks_title_trgm
 * (migration 1100), so a substring search reads the matching rows, not the table. Best first:
 * the task whose id is `q`, a title equal to `q`, titles starting with it, then the rest; each
 * group most recently updated first. Deleted tasks are never found; archived ones are (the task
 * page shows and restores them).
 */
const searchSql = `SELECT t.id, t.title, t.status, t.priority, t.owner, t.project_id, p.name AS project_name, t.updated_at
  FROM tasks t JOIN projects p ON p.id = t.project_id
  WHERE t.deleted_at IS NULL AND ($3::uuid IS NULL OR t.project_id = $3)
    AND (t.title ILIKE $1 ESCAPE '\\' OR t.id = $4::uuid)
  ORDER BY CASE WHEN t.id = $4::uuid THEN 0 WHEN lower(t.title) = lower($2) THEN 1
                WHEN starts_with(lower(t.title), lower($2)) THEN 2 ELSE 3 END,
           t.updated_at DESC, t.id
  LIMIT $5`;

/**
 * GET /api/tasks/search?q=&limit=&project_id=: tasks of every project (or of the named one)
 * whose title holds `q` (case-insensitive) or whose id is `q`.
 * 1. Validate the query (q 1–200 characters once trimmed, limit 1–50, project_id a UUID).
 * 2. A named project must exist (404 otherwise).
 * 3. One statement, best match first.
 */
export async function searchTasks(deps: Pick<Deps, 'storage'>, query: unknown): Promise<{ tasks: TaskHit[] }> {
  const { q, limit, project_id } = parseQuery(taskSearchQuerySchema, query);
  const db = requireDb(deps.storage);
  if (project_id) await selectProject(db, project_id);
  const id = uuidSchema.safeParse(q).success ? q.toLowerCase() : null;
  const { rows } = await db.query<TaskHit>(searchSql, [containsPattern(q), q, project_id ?? null, id, limit]);
  return { tasks: rows };
}
