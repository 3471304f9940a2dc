import * as z from 'zod';
import { ValidationError } from '../errors';
import type { Deps } from '../ports';
import { parseQuery } from '../query-params';
import { redactSecrets } from '../secrets/redact';
import { requireDb } from '../storage';
import { taskSchema, timestampSchema, type Task } from '../tasks/task';
import { boardColumns, projectQuerySchema, urgencyOrderOf, workflowOf } from './board';
import { requireProject } from './project-selection';

export const boardAsOfQuerySchema = projectQuerySchema.extend({ at: timestampSchema });

/**
 * Each task's last state snapshot taken at or before $2, among the tasks whose snapshots ever named
 * project $1 by then (found through entity_snapshots_task_project, migration 1100; the last state
 * through entity_snapshots_entity_seq). Kept when that state is still in the project, on the board
 * (a board status) and neither deleted nor archived; most urgent first, as the live board orders.
 */
const tasksAsOfSql = `SELECT s.state FROM
    (SELECT DISTINCT entity_id FROM entity_snapshots
      WHERE entity_type = 'task' AND state->>'project_id' = $1 AND created_at <= $2) c
    CROSS JOIN LATERAL (SELECT state FROM entity_snapshots
      WHERE entity_type = 'task' AND entity_id = c.entity_id AND created_at <= $2
      ORDER BY created_at DESC, seq DESC LIMIT 1) s
  WHERE s.state->>'project_id' = $1 AND s.state->>'status' = ANY($3::text[])
    AND s.state->>'deleted_at' IS NULL AND s.state->>'archived_at' IS NULL
  ORDER BY ${urgencyOrderOf(`s.state->>'priority'`, `s.state->>'created_at'`, 'c.entity_id')}`;

/** Values for fields a snapshot written before the field existed lacks; any other missing field is null. */
const missingFieldValues: Partial<Record<keyof Task, unknown>> = {
  description: '',
  dependency_ids: [],
  labels: [],
  metadata: {},
  retry_count: 0,
  lock_token: 0,
};
const taskFields = Object.keys(taskSchema.shape) as Array<keyof Task>;

/**
 * A task state snapshot as the task it was, in the API's task shape. Snapshots are kept whole and
 * redacted by their readers: metadata is the task's one free-form object, so its secret-keyed values
 * are; the fencing token keeps its value (its name matches the pattern, it is no secret).
 */
function taskOfState(state: Record<string, unknown>): Record<string, unknown> {
  const task = Object.fromEntries(taskFields.map((field) => [field, state[field] ?? missingFieldValues[field] ?? null]));
  return { ...task, metadata: redactSecrets(task.metadata) };
}

/**
 * GET /api/views/board/as-of?project_id=&at=: the board of GET /api/views/board as it stood at `at`,
 * read-only, from the per-entity state snapshots every task change writes (core/audit/record-change.ts).
 * 1. Validate: `at` an ISO timestamp, not after now; project_id a UUID.
 * 2. The project as GET /api/views/board selects it (named, else the default; 404 when unknown) and its
 *    workflow as it is now (workflows are not snapshotted).
 * 3. Each task's latest state at or before `at`: tasks created after `at` are absent, tasks deleted or
 *    archived by then are left out, tasks changed or deleted since show as they were.
 * A task with no state snapshot at or before `at` (written before snapshots existed) is not shown.
 */
export async function getBoardAsOf(deps: Pick<Deps, 'storage' | 'clock'>, query: unknown) {
  const { project_id, at } = parseQuery(boardAsOfQuerySchema, query);
  if (at.getTime() > deps.clock.now().getTime()) {
    throw new ValidationError('at must not be in the future', [{ path: 'at', message: 'is in the future' }]);
  }
  const db = requireDb(deps.storage);
  const project = await requireProject(db, project_id);
  const [workflow, tasks] = await Promise.all([
    workflowOf(db, project),
    db.query<{ state: Record<string, unknown> }>(tasksAsOfSql, [project.id, at, boardColumns]),
  ]);
  const columns = Object.fromEntries(boardColumns.map((c) => [c, [] as Array<Record<string, unknown>>]));
  for (const { state } of tasks.rows) columns[state.status as string]!.push(taskOfState(state));
  return { project, workflow, columns, as_of: at };
}
