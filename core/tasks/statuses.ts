/**
 * The task statuses and priorities as plain data, importing nothing: the schemas of core/tasks/task.ts
 * and the board view build on them, and the console (console/) bundles them for its board and task
 * page without pulling zod into the browser.
 */

/**
 * The database-backed status list (spec 01 Task.status): the public contract's seven, then the
 * pipeline statuses the table's CHECK rule also allows. A move is valid exactly when its target is here.
 */
export const publicTaskStatuses = ['backlog', 'ready', 'in_progress', 'blocked', 'review', 'completed', 'archived'] as const;
export const taskStatuses = [
  ...publicTaskStatuses,
  'topic_candidate',
  'drafting',
  'image_pending',
  'image_ready',
  'qa_pending',
  'ready_to_publish',
  'published',
  'retrying',
  'failed',
  'cancelled',
] as const;
export type TaskStatus = (typeof taskStatuses)[number];

/** Statuses after which a task counts as done (not open) in counts and queues. */
export const closedTaskStatuses: ReadonlySet<string> = new Set(['completed', 'archived', 'published', 'cancelled']);

/** What an agent's queue holds of the tasks it owns (GET /api/views/agent-queue): ready to take up, or under way. */
export const agentQueueTaskStatuses = ['ready', 'in_progress'] as const satisfies readonly TaskStatus[];

export const taskPriorities = ['low', 'medium', 'high', 'critical'] as const;
export type TaskPriority = (typeof taskPriorities)[number];

/** The board's columns, in spec 01's order (GET /api/views/board); tasks in other statuses are not on the board. */
export const boardColumns = ['backlog', 'ready', 'in_progress', 'blocked', 'review', 'completed'] as const;
export type BoardColumn = (typeof boardColumns)[number];

/**
 * Where POST /api/tasks/:id/move may take a task on the board: spec 01's task transitions let a move go
 * from any status to any valid one, so every other column (archiving is its own route, not a move).
 */
export function boardMovesFrom(status: string): BoardColumn[] {
  return boardColumns.filter((column) => column !== status);
}
