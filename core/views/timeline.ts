import * as z from 'zod';
import { parseQuery } from '../query-params';
import { ValidationError } from '../errors';
import type { Deps } from '../ports';
import { requireDb } from '../storage';
import { timestampSchema, type Task } from '../tasks/task';
import { pushJsonItems, taskJsonSelect, taskJsonText, type TaskJsonRow } from '../tasks/task-json';
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

/** A dated task of the timeline: its JSON text (core/tasks/task-json.ts) and what the tree and range need. */
type TimelineRow = TaskJsonRow & Pick<Task, 'id' | 'parent_task_id' | 'dependency_ids' | 'start_date' | 'due_date'>;

/**
 * GET /api/views/timeline?project_id=&start=&end=: the project's live, unarchived tasks that have
 * a start or due date overlapping the range (a task with one date is a point). Subtasks nest
 * under their parent when the parent is on the timeline too; each entry carries its
 * dependencies' dates. Without start or end the range spans all dated tasks. Answered as JSON
 * text: each entry is `{task, subtasks?, dependencies}` with the task's text built in PostgreSQL,
 * the same bytes as JSON.stringify of `{project, tasks, range}` with the task rows.
 */
export async function getTimelineJson(deps: Pick<Deps, 'storage'>, query: unknown): Promise<string[]> {
  const q = parseQuery(timelineQuerySchema, query);
  if (q.start && q.end && q.start > q.end)
    throw new ValidationError('start must not be after end', [{ path: 'start', message: 'after end' }]);
  const db = requireDb(deps.storage);
  const project = await requireProject(db, q.project_id);
  const { rows: tasks } = await db.query<TimelineRow>(
    `SELECT ${taskJsonSelect}, t.id, t.parent_task_id, t.dependency_ids, t.start_date, t.due_date FROM tasks t
      WHERE t.project_id = $1 AND t.deleted_at IS NULL AND t.archived_at IS NULL AND (t.start_date IS NOT NULL OR t.due_date IS NOT NULL)
        AND ($2::timestamptz IS NULL OR coalesce(t.due_date, t.start_date) >= $2)
        AND ($3::timestamptz IS NULL OR coalesce(t.start_date, t.due_date) <= $3)
      ORDER BY coalesce(t.start_date, t.due_date), t.created_at, t.id`,
    [project.id, q.start ?? null, q.end ?? null],
  );
  const dependencyIds = [...new Set(tasks.flatMap((t) => t.dependency_ids))];
  const { rows: dependencies } = await db.query<DependencyDates>(
    'SELECT id, title, start_date, due_date FROM tasks WHERE id = ANY($1::uuid[]) AND deleted_at IS NULL',
    [dependencyIds],
  );
  const datesById = new Map(dependencies.map((d) => [d.id, d]));
  const onTimeline = new Set(tasks.map((t) => t.id));
  const childrenOf = new Map<string, TimelineRow[]>();
  for (const t of tasks) {
    if (!t.parent_task_id || !onTimeline.has(t.parent_task_id)) continue;
    // appended in place: copying the list for each child made a parent of n dated subtasks cost n² copies
    const siblings = childrenOf.get(t.parent_task_id);
    if (siblings) siblings.push(t);
    else childrenOf.set(t.parent_task_id, [t]);
  }
  const entry = (task: TimelineRow): string => {
    const children = childrenOf.get(task.id);
    const subtasks = children ? `,"subtasks":[${children.map(entry).join(',')}]` : '';
    return `{"task":${taskJsonText(task)}${subtasks},"dependencies":${JSON.stringify(task.dependency_ids.flatMap((id) => datesById.get(id) ?? []))}}`;
  };
  const roots = tasks.filter((t) => !t.parent_task_id || !onTimeline.has(t.parent_task_id));
  const times = tasks
    .flatMap((t) => [t.start_date, t.due_date])
    .filter((d): d is Date => d !== null)
    .map((d) => d.getTime());
  const range = {
    start: q.start ?? (times.length ? new Date(times.reduce((a, b) => Math.min(a, b))) : null),
    end: q.end ?? (times.length ? new Date(times.reduce((a, b) => Math.max(a, b))) : null),
  };
  const pieces = [`{"project":${JSON.stringify(project)},"tasks":[`];
  pushJsonItems(pieces, roots.map(entry));
  pieces.push(`],"range":${JSON.stringify(range)}}`);
  return pieces;
}
