import * as z from 'zod';
import { parseQuery } from '../query-params';
import type { Db, Deps } from '../ports';
import type { Project } from '../projects/project';
import { requireDb } from '../storage';
import { taskColumns, type Task } from '../tasks/task';
import { uuidSchema } from '../validation';
import { requireProject } from './project-selection';

/** The board's columns (spec 01 GET /api/views/board); tasks in other statuses are not on the board. */
export const boardColumns = ['backlog', 'ready', 'in_progress', 'blocked', 'review', 'completed'] as const;

/** Most urgent first inside a column, then oldest; shared by the board and the agent queue. */
export const urgencyOrder = `CASE priority WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 ELSE 3 END, created_at, id`;

export const projectQuerySchema = z.strictObject({ project_id: uuidSchema.optional() });

export interface BoardWorkflow {
  id: string | null;
  name: string;
  states: unknown[];
}

/** The project's default workflow, else the server's default workflow, else the built-in columns. */
async function workflowOf(db: Db, project: Project): Promise<BoardWorkflow> {
  const { rows } = await db.query<BoardWorkflow>(
    `SELECT id, name, states FROM workflows WHERE id = $1 OR is_default ORDER BY (id = $1) DESC, created_at LIMIT 1`,
    [project.default_workflow_id],
  );
  return rows[0] ?? { id: null, name: 'Default', states: [...boardColumns] };
}

export const boardTasksSql = `SELECT ${taskColumns} FROM tasks
  WHERE project_id = $1 AND deleted_at IS NULL AND archived_at IS NULL AND status = ANY($2::text[])
  ORDER BY ${urgencyOrder}`;

/** GET /api/views/board?project_id=: live, unarchived tasks of the project by status column. */
export async function getBoard(deps: Pick<Deps, 'storage'>, query: unknown) {
  const { project_id } = parseQuery(projectQuerySchema, query);
  const db = requireDb(deps.storage);
  const project = await requireProject(db, project_id);
  const [workflow, tasks] = await Promise.all([workflowOf(db, project), db.query<Task>(boardTasksSql, [project.id, boardColumns])]);
  const columns = Object.fromEntries(boardColumns.map((c) => [c, [] as Task[]])) as Record<(typeof boardColumns)[number], Task[]>;
  for (const task of tasks.rows) columns[task.status as (typeof boardColumns)[number]].push(task);
  return { project, workflow, columns };
}
