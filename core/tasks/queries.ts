import * as z from 'zod';
import { parseQuery } from '../query-params';
import { auditColumns, type AuditRecord } from '../audit/audit-record';
import { NotFoundError } from '../errors';
import type { Db, Deps } from '../ports';
import { requireDb } from '../storage';
import { parseId, uuidSchema } from '../validation';
import { queryBoolean } from '../query-params';
import { taskColumns, taskSchema, timestampSchema, type Task } from './task';
import { taskJsonSelect, taskJsonText, type TaskJsonRow } from './task-json';

/**
 * Query of GET /api/tasks/all: `project_id` narrows to one project, `updated_since` to recent changes.
 * The original front end's `include_archived=false` hides archived tasks (absent or true: the
 * spec's listing, archived included); its `include_child_projects` is accepted and has no effect,
 * since projects here have no sub-projects.
 */
export const listAllTasksQuerySchema = z.strictObject({
  project_id: uuidSchema.optional(),
  updated_since: timestampSchema.optional(),
  include_archived: queryBoolean.optional(),
  include_child_projects: queryBoolean.optional(),
});

type FallbackTask = Record<string, unknown>;

const timeOf = (value: unknown): number => (value ? new Date(value as string).getTime() : Number.NaN);

/** Tasks per page while GET /api/tasks/all streams. */
export const ALL_TASKS_PAGE_ROWS = 2000;

/**
 * Every task that is not soft-deleted, oldest first; archived ones included (this is the "all"
 * listing), as pages of at most ALL_TASKS_PAGE_ROWS tasks' JSON texts (core/tasks/task-json.ts:
 * the text is built in PostgreSQL, byte for byte what JSON.stringify of the row answers). Each page
 * is its own keyset query, so a slow reader holds no connection between pages (the next page is
 * read while the current one is written); a task created while the listing runs may appear at its
 * end. The first page is read before this returns, so a failing database is an error, not a cut
 * stream. Served from the fallback copy while the database is away.
 */
export async function listAllTasks(deps: Pick<Deps, 'storage'>, query: unknown): Promise<AsyncIterable<readonly string[]>> {
  const filter = parseQuery(listAllTasksQuerySchema, query);
  const since = filter.updated_since?.getTime();
  if (deps.storage.mode === 'fallback') {
    const tasks = deps.storage.fallback.tasks.filter(
      (t) =>
        !t.deleted_at &&
        (filter.include_archived !== false || (!t.archived_at && t.status !== 'archived')) &&
        (!filter.project_id || t.project_id === filter.project_id) &&
        (since === undefined || timeOf(t.updated_at) >= since),
    );
    return pagesOf([tasks.map((t) => JSON.stringify(t))]);
  }
  const db = deps.storage.db;
  type Row = TaskJsonRow & AllTasksCursor;
  const page = async (after: Row | undefined) => {
    const { sql, params } = allTasksPageSql(filter, after);
    return (await db.query<Row>(sql, params)).rows;
  };
  const first = await page(undefined);
  async function* pages(): AsyncGenerator<string[]> {
    let rows = first;
    while (rows.length) {
      // the next page is asked for before this one is handed on, so that PostgreSQL builds its JSON
      // while this process writes the current one (the reader lets the statement go out first)
      const next = rows.length === ALL_TASKS_PAGE_ROWS ? page(rows[rows.length - 1]) : undefined;
      // a reader that stops early leaves it unawaited: its failure then has nobody to tell
      next?.catch(() => undefined);
      yield rows.map(taskJsonText);
      rows = next ? await next : [];
    }
  }
  return pages();
}

async function* pagesOf<T>(pages: T[][]): AsyncGenerator<T[]> {
  yield* pages;
}

/** Where a page of GET /api/tasks/all ended: the last row's id and its created_at as text. */
export interface AllTasksCursor {
  cursor_id: string;
  cursor_at: string;
}

/**
 * One page's statement of GET /api/tasks/all, exported so that the index test can EXPLAIN exactly
 * what the endpoint runs. Only the filters in use are in the text (at most 16 texts), never as
 * `$n IS NULL OR …`: a repeated text is a named prepared statement, and once PostgreSQL settles on
 * a generic plan for one, such a catch-all keyset condition is a filter, not an index condition, so
 * every page read the listing from its start (50,000 tasks: 270 ms → 430 ms, growing with the
 * square of the pages). After a page, the last row's created_at is read back from the table (the
 * cursor's text of it only stands in if that row has gone meanwhile).
 */
export function allTasksPageSql(
  filter: Pick<z.infer<typeof listAllTasksQuerySchema>, 'project_id' | 'updated_since' | 'include_archived'>,
  after: AllTasksCursor | undefined,
): { sql: string; params: unknown[] } {
  const params: unknown[] = [ALL_TASKS_PAGE_ROWS];
  const where = ['t.deleted_at IS NULL'];
  if (filter.project_id) where.push(`t.project_id = $${params.push(filter.project_id)}`);
  if (filter.updated_since) where.push(`t.updated_at >= $${params.push(filter.updated_since)}`);
  if (filter.include_archived === false) where.push(`t.archived_at IS NULL AND t.status <> 'archived'`);
  if (after) {
    const id = `$${params.push(after.cursor_id)}::uuid`;
    const at = `$${params.push(after.cursor_at)}::timestamptz`;
    where.push(`(t.created_at, t.id) > (COALESCE((SELECT created_at FROM tasks WHERE id = ${id}), ${at}), ${id})`);
  }
  return {
    sql: `SELECT ${taskJsonSelect}, t.id AS cursor_id, t.created_at::text AS cursor_at FROM tasks t
  WHERE ${where.join(' AND ')}
  ORDER BY t.created_at, t.id
  LIMIT $1`,
    params,
  };
}

export async function findTask(db: Db, id: string, lock = false): Promise<Task | undefined> {
  const { rows } = await db.query<Task>(`SELECT ${taskColumns} FROM tasks WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0];
}

const taskLinkSchema = z.object({ id: z.string(), title: z.string(), status: z.string() });
export type TaskLink = z.infer<typeof taskLinkSchema>;

/** GET /api/tasks/:id: the task with its dependencies and subtasks resolved, and its history pointer. */
export const taskDetailSchema = taskSchema.extend({
  dependencies: z.array(taskLinkSchema),
  subtasks: z.array(taskLinkSchema),
  history: z.object({ url: z.string(), entries: z.number().int().nullable() }),
});

export type TaskDetail = FallbackTask & {
  dependencies: TaskLink[];
  subtasks: TaskLink[];
  history: { url: string; entries: number | null };
};

/** GET /api/tasks/:id (and the parent a subtask link answers) as a value: getTaskJson's text, parsed. */
export async function getTask(deps: Pick<Deps, 'storage'>, rawId: unknown): Promise<TaskDetail> {
  return JSON.parse((await getTaskJson(deps, rawId)).join('')) as TaskDetail;
}

/**
 * GET /api/tasks/:id: one task (soft-deleted ones too, so that they can be restored) with its
 * dependencies and subtasks resolved to {id, title, status}, and a pointer to its audit history,
 * as JSON text in pieces: the task's text as its row keeps it (core/tasks/task-json.ts), the rest
 * written by the same statement, the same bytes as JSON.stringify of the task row with the three
 * members after it: one round trip, and no row turned into JavaScript values.
 */
export async function getTaskJson(deps: Pick<Deps, 'storage'>, rawId: unknown): Promise<string[]> {
  const id = parseId(rawId);
  const url = `/api/tasks/${id}/history`;
  if (deps.storage.mode === 'fallback') {
    const tasks = deps.storage.fallback.tasks;
    const task = tasks.find((t) => t.id === id);
    if (!task) throw new NotFoundError(`task ${id} not found`);
    const deps_ = new Set((task.dependency_ids as string[] | undefined) ?? []);
    const link = (t: FallbackTask): TaskLink => ({ id: String(t.id), title: String(t.title), status: String(t.status) });
    const detail: TaskDetail = {
      ...task,
      dependencies: tasks.filter((t) => deps_.has(String(t.id)) && !t.deleted_at).map(link),
      subtasks: tasks.filter((t) => t.parent_task_id === id && !t.deleted_at).map(link),
      history: { url, entries: null },
    };
    return [JSON.stringify(detail)];
  }
  const { rows } = await deps.storage.db.query<TaskJsonRow & { dependencies: string; subtasks: string; history_entries: number }>(
    taskDetailSql,
    [id],
  );
  const row = rows[0];
  if (!row) throw new NotFoundError(`task ${id} not found`);
  const task = taskJsonText(row);
  return [
    task.slice(0, -1),
    `,"dependencies":${row.dependencies},"subtasks":${row.subtasks},"history":${JSON.stringify({ url, entries: row.history_entries })}}`,
  ];
}

/** A task as the JSON text of {id, title, status}, over the tasks row aliased `alias`. */
const taskLinkJson = (alias: string) =>
  `'{"id":"' || ${alias}.id::text || '","title":' || to_json(${alias}.title)::text || ',"status":' || to_json(${alias}.status)::text || '}'`;

/**
 * The task's JSON pieces, its live dependencies (in dependency_ids order) and subtasks as the JSON
 * text of [{id, title, status}], and its audit row count, in one statement.
 */
const taskDetailSql = `SELECT ${taskJsonSelect},
  COALESCE((SELECT '[' || string_agg(${taskLinkJson('d')}, ',' ORDER BY array_position(t.dependency_ids, d.id)) || ']'
              FROM tasks d WHERE d.id = ANY(t.dependency_ids) AND d.deleted_at IS NULL), '[]') AS dependencies,
  COALESCE((SELECT '[' || string_agg(${taskLinkJson('s')}, ',' ORDER BY s.created_at, s.id) || ']'
              FROM tasks s WHERE s.parent_task_id = t.id AND s.deleted_at IS NULL), '[]') AS subtasks,
  (SELECT count(*)::int FROM audit_log a WHERE a.task_id = t.id) AS history_entries
  FROM tasks t WHERE t.id = $1`;

/** GET /api/tasks/:id/history: every audit record of the task, newest first. */
export async function getTaskHistory(deps: Pick<Deps, 'storage'>, rawId: unknown): Promise<{ task_id: string; history: AuditRecord[] }> {
  const id = parseId(rawId);
  const db = requireDb(deps.storage);
  const [task, history] = await Promise.all([
    findTask(db, id),
    db.query<AuditRecord>(`SELECT ${auditColumns} FROM audit_log WHERE task_id = $1 ORDER BY timestamp DESC, id DESC`, [id]),
  ]);
  if (!task && history.rowCount === 0) throw new NotFoundError(`task ${id} not found`);
  return { task_id: id, history: history.rows };
}
