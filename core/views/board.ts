import * as z from 'zod';
import { parseQuery, queryInt } from '../query-params';
import type { Db, Deps } from '../ports';
import type { Project } from '../projects/project';
import { requireDb } from '../storage';
import { boardColumns, type BoardColumn } from '../tasks/statuses';
import { pushJsonItems, taskJsonSelect, taskJsonText, type TaskJsonRow } from '../tasks/task-json';
import { uuidSchema } from '../validation';
import { boardStuckReasons } from './board-stuck';
import { requireProject } from './project-selection';

export { boardColumns };

/** Most urgent first inside a column, then oldest, over the given expressions of a task's priority, creation time and id. */
export const urgencyOrderOf = (priority: string, createdAt: string, id: string) =>
  `CASE ${priority} WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 ELSE 3 END, ${createdAt}, ${id}`;

/** Most urgent first inside a column, then oldest (over tasks aliased t); index `tasks_board_column_order` (migration 1170) holds this order by column, so a change here needs a new index. */
export const urgencyOrder = urgencyOrderOf('t.priority', 't.created_at', 't.id');

export const projectQuerySchema = z.strictObject({ project_id: uuidSchema.optional() });
/** The greatest `limit_per_column`: a screenful of the tallest column many times over. */
export const BOARD_LIMIT_PER_COLUMN_MAX = 500;
/**
 * `include=stuck` adds `stuck`, why cards are stuck beyond what their rows say (core/views/board-stuck.ts):
 * the console's board in one request. `limit_per_column` answers the first tasks of each column with
 * every column's count: the first screenful the console paints while the whole board travels.
 */
export const boardQuerySchema = projectQuerySchema.extend({
  include: z.enum(['stuck'], { message: 'must be stuck' }).optional(),
  limit_per_column: queryInt(1, BOARD_LIMIT_PER_COLUMN_MAX).optional(),
});

/** What `limit_per_column` adds to the answer: each column's number of tasks, and the board status of the tasks those listed depend on that the answer leaves out, by id. */
export const boardFirstTasksFieldsSchema = z.object({
  counts: z.record(z.enum(boardColumns), z.number().int()).optional(),
  dependency_statuses: z.record(z.string(), z.enum(boardColumns)).optional(),
});

export interface BoardWorkflow {
  id: string | null;
  name: string;
  states: unknown[];
}

/** The project's default workflow, else the server's default workflow, else the built-in columns. */
export async function workflowOf(db: Db, project: Project): Promise<BoardWorkflow> {
  const { rows } = await db.query<BoardWorkflow>(
    `SELECT id, name, states FROM workflows WHERE id = $1 OR is_default ORDER BY (id = $1) DESC, created_at LIMIT 1`,
    [project.default_workflow_id],
  );
  return rows[0] ?? { id: null, name: 'Default', states: [...boardColumns] };
}

export const boardTasksSql = `SELECT ${taskJsonSelect}, t.status AS board_status FROM tasks t
  WHERE t.project_id = $1 AND t.deleted_at IS NULL AND t.archived_at IS NULL AND t.status = ANY($2::text[])
  ORDER BY ${urgencyOrder}`;

/** The first $3 tasks of each board column (in the board's order), each with its dependencies' ids. */
export const boardFirstTasksSql = `SELECT ${taskJsonSelect}, t.status AS board_status, t.id AS board_task_id, t.dependency_ids AS board_dependency_ids
  FROM unnest($2::text[]) WITH ORDINALITY AS c(status, n)
  CROSS JOIN LATERAL (SELECT * FROM tasks t
    WHERE t.project_id = $1 AND t.deleted_at IS NULL AND t.archived_at IS NULL AND t.status = c.status
    ORDER BY ${urgencyOrder} LIMIT $3) t
  ORDER BY c.n, ${urgencyOrder}`;

/** The number of tasks in each board column. */
export const boardCountsSql = `SELECT t.status, count(*)::int AS n FROM tasks t
  WHERE t.project_id = $1 AND t.deleted_at IS NULL AND t.archived_at IS NULL AND t.status = ANY($2::text[])
  GROUP BY t.status`;

/** The board status of each of these tasks that is on the project's board. */
const boardStatusesSql = `SELECT t.id, t.status FROM tasks t
  WHERE t.id = ANY($2::uuid[]) AND t.project_id = $1 AND t.deleted_at IS NULL AND t.archived_at IS NULL AND t.status = ANY($3::text[])`;

type BoardRow = TaskJsonRow & { board_status: BoardColumn };

/** The first `perColumn` tasks of each column, every column's count, and the board status of the tasks they depend on that the answer leaves out. */
async function boardFirstTasks(db: Db, projectId: string, perColumn: number) {
  const [tasks, counted] = await Promise.all([
    db.query<BoardRow & { board_task_id: string; board_dependency_ids: string[] }>(boardFirstTasksSql, [
      projectId,
      boardColumns,
      perColumn,
    ]),
    db.query<{ status: BoardColumn; n: number }>(boardCountsSql, [projectId, boardColumns]),
  ]);
  const listed = new Set(tasks.rows.map((row) => row.board_task_id));
  const dependencies = [...new Set(tasks.rows.flatMap((row) => row.board_dependency_ids))].filter((id) => !listed.has(id));
  const statuses =
    dependencies.length > 0
      ? (await db.query<{ id: string; status: BoardColumn }>(boardStatusesSql, [projectId, dependencies, boardColumns])).rows
      : [];
  const counts = Object.fromEntries(boardColumns.map((c) => [c, 0])) as Record<BoardColumn, number>;
  for (const { status, n } of counted.rows) counts[status] = n;
  return { rows: tasks.rows, listed, counts, dependencyStatuses: Object.fromEntries(statuses.map((s) => [s.id, s.status])) };
}

/**
 * GET /api/views/board?project_id=: live, unarchived tasks of the project by status column, as
 * the answer's JSON text in pieces (in order; the handler writes their bytes without joining
 * them): the tasks' text is built in PostgreSQL (core/tasks/task-json.ts), the whole the same
 * bytes as JSON.stringify of `{project, workflow, columns}` with the task rows (and `stuck` when
 * asked for). With `limit_per_column`, each column holds only its first tasks and the answer adds
 * `counts` (each column's number of tasks) and `dependency_statuses` (the board status of the tasks
 * those depend on that the answer leaves out), and `stuck` names only the tasks listed.
 */
export async function getBoardJson(deps: Pick<Deps, 'storage' | 'clock'>, query: unknown): Promise<string[]> {
  const { project_id, include, limit_per_column } = parseQuery(boardQuerySchema, query);
  const db = requireDb(deps.storage);
  const project = await requireProject(db, project_id);
  const [workflow, tasks, stuckOfAll] = await Promise.all([
    workflowOf(db, project),
    limit_per_column === undefined
      ? db
          .query<BoardRow>(boardTasksSql, [project.id, boardColumns])
          .then(({ rows }) => ({ rows, listed: undefined, counts: undefined, dependencyStatuses: undefined }))
      : boardFirstTasks(db, project.id, limit_per_column),
    include === 'stuck' ? boardStuckReasons(db, project.id, deps.clock.now()) : undefined,
  ]);
  const columns = Object.fromEntries(boardColumns.map((c) => [c, [] as string[]])) as Record<BoardColumn, string[]>;
  for (const row of tasks.rows) columns[row.board_status].push(taskJsonText(row));
  const pieces = [`${JSON.stringify({ project, workflow }).slice(0, -1)},"columns":{`];
  boardColumns.forEach((column, c) => {
    pieces.push(`${c > 0 ? ',' : ''}${JSON.stringify(column)}:[`);
    pushJsonItems(pieces, columns[column]);
    pieces.push(']');
  });
  pieces.push('}');
  const { listed } = tasks;
  const stuck = stuckOfAll && listed ? Object.fromEntries(Object.entries(stuckOfAll).filter(([id]) => listed.has(id))) : stuckOfAll;
  if (stuck) pieces.push(`,"stuck":${JSON.stringify(stuck)}`);
  if (tasks.counts)
    pieces.push(`,"counts":${JSON.stringify(tasks.counts)},"dependency_statuses":${JSON.stringify(tasks.dependencyStatuses)}`);
  pieces.push('}');
  return pieces;
}
