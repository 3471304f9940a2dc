import * as z from 'zod';
import { parseQuery } from '../query-params';
import type { Db, Deps } from '../ports';
import type { Project } from '../projects/project';
import { requireDb } from '../storage';
import { boardColumns } from '../tasks/statuses';
import { pushJsonItems, taskJsonSelect, taskJsonText, type TaskJsonRow } from '../tasks/task-json';
import { uuidSchema } from '../validation';
import { boardStuckReasons } from './board-stuck';
import { requireProject } from './project-selection';

export { boardColumns };

/** Most urgent first inside a column, then oldest, over the given expressions of a task's priority, creation time and id. */
export const urgencyOrderOf = (priority: string, createdAt: string, id: string) =>
  `CASE ${priority} WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 ELSE 3 END, ${createdAt}, ${id}`;

/** Most urgent first inside a column, then oldest (over tasks aliased t). */
export const urgencyOrder = urgencyOrderOf('t.priority', 't.created_at', 't.id');

export const projectQuerySchema = z.strictObject({ project_id: uuidSchema.optional() });
/** `include=stuck` adds `stuck`, why cards are stuck beyond what their rows say (core/views/board-stuck.ts): the console's board in one request. */
export const boardQuerySchema = projectQuerySchema.extend({ include: z.enum(['stuck'], { message: 'must be stuck' }).optional() });

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

/**
 * GET /api/views/board?project_id=: live, unarchived tasks of the project by status column, as
 * the answer's JSON text in pieces (in order; the handler writes their bytes without joining
 * them): the tasks' text is built in PostgreSQL (core/tasks/task-json.ts), the whole the same
 * bytes as JSON.stringify of `{project, workflow, columns}` with the task rows (and `stuck` when
 * asked for).
 */
export async function getBoardJson(deps: Pick<Deps, 'storage' | 'clock'>, query: unknown): Promise<string[]> {
  const { project_id, include } = parseQuery(boardQuerySchema, query);
  const db = requireDb(deps.storage);
  const project = await requireProject(db, project_id);
  const [workflow, tasks, stuck] = await Promise.all([
    workflowOf(db, project),
    db.query<TaskJsonRow & { board_status: (typeof boardColumns)[number] }>(boardTasksSql, [project.id, boardColumns]),
    include === 'stuck' ? boardStuckReasons(db, project.id, deps.clock.now()) : undefined,
  ]);
  const columns = Object.fromEntries(boardColumns.map((c) => [c, [] as string[]])) as Record<(typeof boardColumns)[number], string[]>;
  for (const row of tasks.rows) columns[row.board_status].push(taskJsonText(row));
  const pieces = [`${JSON.stringify({ project, workflow }).slice(0, -1)},"columns":{`];
  boardColumns.forEach((column, c) => {
    pieces.push(`${c > 0 ? ',' : ''}${JSON.stringify(column)}:[`);
    pushJsonItems(pieces, columns[column]);
    pieces.push(']');
  });
  pieces.push(stuck ? `},"stuck":${JSON.stringify(stuck)}}` : '}}');
  return pieces;
}
