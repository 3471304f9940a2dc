import * as z from 'zod';
import { OPERATOR_ACTOR } from '../actors';
import { recordChange } from '../audit/record-change';
import { ConflictError, NotFoundError } from '../errors';
import type { Deps } from '../ports';
import { requireDb } from '../storage';
import { taskEvent } from '../tasks/commands';
import { findTask } from '../tasks/queries';
import { agentNameSchema, taskColumns, type Task } from '../tasks/task';
import { parseInput, uuidSchema } from '../validation';

type LockDeps = Pick<Deps, 'storage' | 'clock' | 'ids' | 'events'>;

export const claimSchema = z.strictObject({ task_id: uuidSchema, agent_name: agentNameSchema });
export const releaseSchema = z.strictObject({ task_id: uuidSchema, agent_name: agentNameSchema.optional() });

/**
 * POST /api/agent/claim: lock an unlocked live task for an agent. The lock is one conditional
 * UPDATE, so of many concurrent claims exactly one matches `locked_by IS NULL`; the others
 * find the row locked and get 409. Unknown or soft-deleted task: 404. The claiming agent is the actor.
 */
export async function claimTask(deps: LockDeps, body: unknown): Promise<Task> {
  const { task_id, agent_name } = parseInput(claimSchema, body ?? {}, 'claim');
  const db = requireDb(deps.storage);
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<Task>(
      `UPDATE tasks SET locked_at = $3, locked_by = $2, updated_at = $3
        WHERE id = $1 AND locked_by IS NULL AND deleted_at IS NULL RETURNING ${taskColumns}`,
      [task_id, agent_name, deps.clock.now()],
    );
    const task = rows[0];
    if (!task) {
      const current = await findTask(tx, task_id);
      if (!current || current.deleted_at) throw new NotFoundError(`task ${task_id} not found`);
      throw new ConflictError(`task ${task_id} is already locked by ${current.locked_by}`, { locked_by: current.locked_by, locked_at: current.locked_at });
    }
    await recordChange(deps, tx, {
      actor: agent_name,
      action: 'claimed',
      entityType: 'task',
      entityId: task_id,
      projectId: task.project_id,
      taskId: task_id,
      oldValue: { ...task, locked_at: null, locked_by: null },
      newValue: task,
      event: taskEvent('claimed', task_id),
    });
    return task;
  });
}

/**
 * POST /api/agent/release {task_id, agent_name?}: with agent_name, releases only that agent's
 * lock; without, the operator releases whatever lock there is. 404 when there is no such lock.
 */
export async function releaseTask(deps: LockDeps, body: unknown): Promise<{ released: true }> {
  const { task_id, agent_name } = parseInput(releaseSchema, body ?? {}, 'release');
  const db = requireDb(deps.storage);
  await db.transaction(async (tx) => {
    const before = await findTask(tx, task_id, true);
    const lockedByCaller = before && before.locked_by !== null && (agent_name === undefined || before.locked_by === agent_name);
    if (!before || !lockedByCaller) {
      throw new NotFoundError(
        agent_name ? `task ${task_id} is not locked by ${agent_name}` : `task ${task_id} not found or not locked`,
      );
    }
    const { rows } = await tx.query<Task>(
      `UPDATE tasks SET locked_at = NULL, locked_by = NULL, updated_at = $2 WHERE id = $1 RETURNING ${taskColumns}`,
      [task_id, deps.clock.now()],
    );
    await recordChange(deps, tx, {
      actor: agent_name ?? OPERATOR_ACTOR,
      action: 'released',
      entityType: 'task',
      entityId: task_id,
      projectId: before.project_id,
      taskId: task_id,
      oldValue: before,
      newValue: rows[0],
      event: taskEvent('released', task_id),
    });
  });
  return { released: true };
}
