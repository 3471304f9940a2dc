import * as z from 'zod';
import { parseQuery } from '../query-params';
import { ValidationError } from '../errors';
import type { Deps } from '../ports';
import { requireDb } from '../storage';
import { taskColumns, timestampSchema, type Task } from '../tasks/task';
import { uuidSchema } from '../validation';
import { requireProject } from './project-selection';

export const timelineQuerySchema = z.strictObject({
  project_id: uuidSchema.optional(),
  start: timestampSchema.optional(),
  end: timestampSchema.optional(),
});

interface DependencyDates {
  id: string;
  title: string;
  start_date: Date | null;
  due_date: Date | null;
}

export interface TimelineEntry {
  task: Task;
  subtasks?: TimelineEntry[];
  dependencies: DependencyDates[];
}

/**
 * GET /api/views/timeline?project_id=&start=&end=: the project's live, unarchived tasks that have
 * a start or due date overlapping the range (a task with one date is a point). Subtasks nest
 * under their parent when the parent is on the timeline too; each entry carries its
 * dependencies' dates. Without start or end the range spans all dated tasks.
 */
export async function getTimeline(deps: Pick<Deps, 'storage'>, query: unknown) {
  const q = parseQuery(timelineQuerySchema, query);
  if (q.start && q.end && q.start > q.end) throw new ValidationError('start must not be after end', [{ path: 'start', message: 'after end' }]);
  const db = requireDb(deps.storage);
  const project = await requireProject(db, q.project_id);
  const { rows: tasks } = await db.query<Task>(
    `SELECT ${taskColumns} FROM tasks
      WHERE project_id = $1 AND deleted_at IS NULL AND archived_at IS NULL AND (start_date IS NOT NULL OR due_date IS NOT NULL)
        AND ($2::timestamptz IS NULL OR coalesce(due_date, start_date) >= $2)
        AND ($3::timestamptz IS NULL OR coalesce(start_date, due_date) <= $3)
      ORDER BY coalesce(start_date, due_date), created_at, id`,
    [project.id, q.start ?? null, q.end ?? null],
  );
  const dependencyIds = [...new Set(tasks.flatMap((t) => t.dependency_ids))];
  const { rows: dependencies } = await db.query<DependencyDates>(
    'SELECT id, title, start_date, due_date FROM tasks WHERE id = ANY($1::uuid[]) AND deleted_at IS NULL',
    [dependencyIds],
  );
  const datesById = new Map(dependencies.map((d) => [d.id, d]));
  const onTimeline = new Set(tasks.map((t) => t.id));
  const childrenOf = new Map<string, Task[]>();
  for (const t of tasks) {
    if (t.parent_task_id && onTimeline.has(t.parent_task_id)) childrenOf.set(t.parent_task_id, [...(childrenOf.get(t.parent_task_id) ?? []), t]);
  }
  const entry = (task: Task): TimelineEntry => {
    const children = childrenOf.get(task.id);
    return {
      task,
      ...(children ? { subtasks: children.map(entry) } : {}),
      dependencies: task.dependency_ids.flatMap((id) => datesById.get(id) ?? []),
    };
  };
  const roots = tasks.filter((t) => !t.parent_task_id || !onTimeline.has(t.parent_task_id));
  const times = tasks.flatMap((t) => [t.start_date, t.due_date]).filter((d): d is Date => d !== null).map((d) => d.getTime());
  const range = {
    start: q.start ?? (times.length ? new Date(times.reduce((a, b) => Math.min(a, b))) : null),
    end: q.end ?? (times.length ? new Date(times.reduce((a, b) => Math.max(a, b))) : null),
  };
  return { project, tasks: roots.map(entry), range };
}
