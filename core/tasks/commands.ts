import * as z from 'zod';
import { OPERATOR_ACTOR } from '../actors';
import { recordChange } from '../audit/record-change';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import { patchRow } from '../patch-row';
import type { Db, Deps } from '../ports';
import { requireDb } from '../storage';
import { parseId, parseInput, uuidSchema } from '../validation';
import { assertLiveTasks, assertNoDependencyCycle, assertNoParentCycle, lockTaskGraph } from './graph';
import { findTask, getTask, type TaskDetail } from './queries';
import { createTaskSchema, metadataWithCategory, taskColumns, taskStatusSchema, updateTaskSchema, type Task } from './task';

type TaskDeps = Pick<Deps, 'storage' | 'clock' | 'ids' | 'events'>;

export function taskEvent(action: string, taskId: string) {
  return { name: 'task:changed', payload: { action, taskId }, channel: 'events' as const };
}

async function assertProjectExists(db: Db, projectId: string): Promise<void> {
  const { rowCount } = await db.query('SELECT 1 FROM projects WHERE id = $1', [projectId]);
  if (!rowCount)
    throw new ValidationError(`project_id: no such project ${projectId}`, [{ path: 'project_id', message: 'no such project' }]);
}

/** The task, locked for update; 404 when unknown, 409 when soft-deleted (restore it first). */
export async function lockLiveTask(tx: Db, id: string): Promise<Task> {
  const task = await findTask(tx, id, true);
  if (!task) throw new NotFoundError(`task ${id} not found`);
  if (task.deleted_at) throw new ConflictError(`task ${id} is deleted; restore it first`);
  return task;
}

/** Fields a status change also sets: status_updated_at always, completed_at on entering completed. */
function statusEffects(before: Pick<Task, 'status' | 'completed_at'>, status: string, now: Date): Record<string, unknown> {
  if (status === before.status) return {};
  return { status, status_updated_at: now, completed_at: status === 'completed' ? now : null };
}

/**
 * Applies `set` to a task row and records it (audit, state snapshot, task:changed), all in `tx`.
 * The one place where task rows are updated, so every mutation is traced the same way.
 */
export async function writeTask(
  deps: TaskDeps,
  tx: Db,
  before: Task,
  set: Record<string, unknown>,
  action: string,
  actor: string,
): Promise<Task> {
  const now = deps.clock.now();
  const after = (await patchRow<Task>(tx, { table: 'tasks', key: before.id, set, at: now, returning: taskColumns }))!;
  await recordChange(deps, tx, {
    actor,
    action,
    entityType: 'task',
    entityId: before.id,
    projectId: after.project_id,
    taskId: before.id,
    oldValue: before,
    newValue: after,
    event: taskEvent(action, before.id),
  });
  return after;
}

/**
 * Creates a task: validate the body, check the project, parent and dependencies exist, insert
 * (status_updated_at now; completed_at now when created completed), audit `created`.
 */
export async function createTask(deps: TaskDeps, body: unknown, actor = OPERATOR_ACTOR): Promise<Task> {
  const input = parseInput(createTaskSchema, body ?? {}, 'task');
  const db = requireDb(deps.storage);
  const id = deps.ids.uuid();
  const now = deps.clock.now();
  const dependencyIds = [...new Set(input.dependency_ids)];
  return db.transaction(async (tx) => {
    await assertProjectExists(tx, input.project_id);
    if (input.parent_task_id) await assertLiveTasks(tx, [input.parent_task_id], 'parent_task_id');
    await assertLiveTasks(tx, dependencyIds, 'dependency_ids');
    const { rows } = await tx.query<Task>(
      `INSERT INTO tasks (id, project_id, title, description, status, priority, owner, due_date, start_date, estimated_effort,
         actual_effort, parent_task_id, dependency_ids, labels, recurrence_rule, metadata, created_at, updated_at, status_updated_at, completed_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $17, $17, $18)
       RETURNING ${taskColumns}`,
      [
        id,
        input.project_id,
        input.title,
        input.description,
        input.status,
        input.priority,
        input.owner,
        input.due_date,
        input.start_date,
        input.estimated_effort,
        input.actual_effort,
        input.parent_task_id,
        dependencyIds,
        input.labels,
        input.recurrence_rule,
        metadataWithCategory(input.metadata, input.category),
        now,
        input.status === 'completed' ? now : null,
      ],
    );
    const task = rows[0]!;
    await recordChange(deps, tx, {
      actor,
      action: 'created',
      entityType: 'task',
      entityId: id,
      projectId: task.project_id,
      taskId: id,
      newValue: task,
      event: taskEvent('created', id),
    });
    return task;
  });
}

/**
 * Updates the given fields of a live task. A status in the patch behaves as a move; a new
 * parent or dependency list is checked for existence and cycles under the task-graph lock.
 * Audited as `status_changed` when the status changes, else `updated`.
 */
export async function updateTask(deps: TaskDeps, rawId: unknown, body: unknown, actor = OPERATOR_ACTOR): Promise<Task> {
  const id = parseId(rawId);
  const patch = parseInput(updateTaskSchema, body ?? {}, 'task update');
  const db = requireDb(deps.storage);
  return db.transaction(async (tx) => {
    const graphChange = patch.dependency_ids !== undefined || patch.parent_task_id !== undefined;
    if (graphChange) await lockTaskGraph(tx);
    const before = await lockLiveTask(tx, id);
    const { category, ...fields } = patch;
    const set: Record<string, unknown> = { ...fields };
    if (category !== undefined) set.metadata = metadataWithCategory(patch.metadata ?? before.metadata, category);
    if (patch.project_id && patch.project_id !== before.project_id) await assertProjectExists(tx, patch.project_id);
    if (patch.parent_task_id) {
      await assertNoParentCycle(tx, id, patch.parent_task_id);
      await assertLiveTasks(tx, [patch.parent_task_id], 'parent_task_id');
    }
    if (patch.dependency_ids) {
      set.dependency_ids = [...new Set(patch.dependency_ids)];
      await assertNoDependencyCycle(tx, id, set.dependency_ids as string[]);
      await assertLiveTasks(tx, set.dependency_ids as string[], 'dependency_ids');
    }
    delete set.status;
    if (patch.status) Object.assign(set, statusEffects(before, patch.status, deps.clock.now()));
    const action = patch.status && patch.status !== before.status ? 'status_changed' : 'updated';
    return writeTask(deps, tx, before, set, action, actor);
  });
}

export const moveTaskSchema = z.strictObject({ status: taskStatusSchema });

/** POST /api/tasks/:id/move: any valid status; sets status_updated_at (and completed_at on completion). */
export async function moveTask(deps: TaskDeps, rawId: unknown, body: unknown, actor = OPERATOR_ACTOR): Promise<Task> {
  const id = parseId(rawId);
  const { status } = parseInput(moveTaskSchema, body ?? {}, 'move');
  const db = requireDb(deps.storage);
  return db.transaction(async (tx) => {
    const before = await lockLiveTask(tx, id);
    const now = deps.clock.now();
    // a move to the same status still stamps status_updated_at: the caller asked for the move
    const set = { status, status_updated_at: now, ...statusEffects(before, status, now) };
    return writeTask(deps, tx, before, set, 'status_changed', actor);
  });
}

/** Archive: sets archived_at (status kept); refused with 409 for a soft-deleted or already archived task. */
export async function archiveTask(deps: TaskDeps, rawId: unknown, actor = OPERATOR_ACTOR): Promise<Task> {
  const id = parseId(rawId);
  const db = requireDb(deps.storage);
  return db.transaction(async (tx) => {
    const before = await findTask(tx, id, true);
    if (!before) throw new NotFoundError(`task ${id} not found`);
    if (before.deleted_at) throw new ConflictError(`task ${id} is deleted and cannot be archived; restore it first`);
    if (before.archived_at) throw new ConflictError(`task ${id} is already archived`);
    return writeTask(deps, tx, before, { archived_at: deps.clock.now() }, 'archived', actor);
  });
}

/** Soft delete: sets deleted_at and clears archived_at; the task then vanishes from every listing. */
export async function deleteTask(deps: TaskDeps, rawId: unknown, actor = OPERATOR_ACTOR): Promise<{ deleted: true; id: string }> {
  const id = parseId(rawId);
  const db = requireDb(deps.storage);
  await db.transaction(async (tx) => {
    const before = await findTask(tx, id, true);
    if (!before || before.deleted_at) throw new NotFoundError(`task ${id} not found`);
    await writeTask(deps, tx, before, { deleted_at: deps.clock.now(), archived_at: null }, 'deleted', actor);
  });
  return { deleted: true, id };
}

/** Restore: clears both markers of an archived or soft-deleted task; 409 when it is neither. */
export async function restoreTask(deps: TaskDeps, rawId: unknown, actor = OPERATOR_ACTOR): Promise<Task> {
  const id = parseId(rawId);
  const db = requireDb(deps.storage);
  return db.transaction(async (tx) => {
    const before = await findTask(tx, id, true);
    if (!before) throw new NotFoundError(`task ${id} not found`);
    if (!before.deleted_at && !before.archived_at) throw new ConflictError(`task ${id} is neither archived nor deleted`);
    return writeTask(deps, tx, before, { deleted_at: null, archived_at: null }, 'restored', actor);
  });
}

/** Retry: back to ready, retry_count + 1, lock cleared. */
export async function retryTask(
  deps: TaskDeps,
  rawId: unknown,
  actor = OPERATOR_ACTOR,
): Promise<{ retried: true; retry_count: number; task: Task }> {
  const id = parseId(rawId);
  const db = requireDb(deps.storage);
  const task = await db.transaction(async (tx) => {
    const before = await lockLiveTask(tx, id);
    const now = deps.clock.now();
    const set = {
      status: 'ready',
      status_updated_at: now,
      completed_at: null,
      retry_count: before.retry_count + 1,
      locked_at: null,
      locked_by: null,
    };
    return writeTask(deps, tx, before, set, 'retried', actor);
  });
  return { retried: true, retry_count: task.retry_count, task };
}

export const dependencyChangeSchema = z
  .strictObject({
    add: z.array(uuidSchema).max(500).default([]),
    remove: z.array(uuidSchema).max(500).default([]),
  })
  .refine((b) => b.add.length + b.remove.length > 0, { message: 'name at least one id in add or remove' })
  .refine((b) => !b.add.some((id) => b.remove.includes(id)), { message: 'an id cannot be both added and removed' });

/** POST /api/tasks/:id/dependencies {add, remove}: added ids must be live tasks and close no cycle. */
export async function changeDependencies(
  deps: TaskDeps,
  rawId: unknown,
  body: unknown,
  actor = OPERATOR_ACTOR,
): Promise<{ dependencies: string[] }> {
  const id = parseId(rawId);
  const change = parseInput(dependencyChangeSchema, body ?? {}, 'dependencies');
  const db = requireDb(deps.storage);
  return db.transaction(async (tx) => {
    await lockTaskGraph(tx);
    const before = await lockLiveTask(tx, id);
    const removed = new Set(change.remove);
    const next = [...new Set([...before.dependency_ids.filter((d) => !removed.has(d)), ...change.add])];
    const added = change.add.filter((d) => !before.dependency_ids.includes(d));
    await assertNoDependencyCycle(tx, id, next);
    await assertLiveTasks(tx, added, 'add');
    const after = await writeTask(deps, tx, before, { dependency_ids: next }, 'dependencies_changed', actor);
    return { dependencies: after.dependency_ids };
  });
}

export const linkSubtaskSchema = z.strictObject({ task_id: uuidSchema });

/** POST /api/tasks/:id/subtasks {task_id}: makes an existing task a subtask; answers the parent with its subtasks. */
export async function linkSubtask(deps: TaskDeps, rawId: unknown, body: unknown, actor = OPERATOR_ACTOR): Promise<TaskDetail> {
  const parentId = parseId(rawId);
  const { task_id: childId } = parseInput(linkSubtaskSchema, body ?? {}, 'subtask');
  const db = requireDb(deps.storage);
  await db.transaction(async (tx) => {
    await lockTaskGraph(tx);
    await lockLiveTask(tx, parentId);
    const child = await findTask(tx, childId, true);
    if (!child || child.deleted_at) {
      throw new ValidationError(`task_id: no such task ${childId}`, [{ path: 'task_id', message: 'no such task' }]);
    }
    await assertNoParentCycle(tx, childId, parentId);
    if (child.parent_task_id === parentId) return;
    await writeTask(deps, tx, child, { parent_task_id: parentId }, 'subtask_linked', actor);
  });
  return getTask(deps, parentId);
}
