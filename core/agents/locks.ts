import * as z from 'zod';
import { OPERATOR_ACTOR } from '../actors';
import { ConflictError, NotFoundError } from '../errors';
import type { Db, Deps } from '../ports';
import { requireDb } from '../storage';
import { findTask } from '../tasks/queries';
import { SECRET_WORDS_SQL } from '../secrets/redact';
import { taskEvent } from '../tasks/commands';
import { agentNameSchema, taskColumns, type Task } from '../tasks/task';
import { taskOfStateJson } from '../tasks/task-json';
import { parseInput, uuidSchema } from '../validation';
import { recordChange } from '../audit/record-change';
import { claimChange, defaultLeasePolicy, expireLeaseIfLapsed, leaseLapsed, leaseRules, unlockSql, type LeasePolicy } from './leases';

type LockDeps = Pick<Deps, 'storage' | 'clock' | 'ids' | 'events'>;

const leaseSecondsSchema = z
  .number({ message: 'must be a number of seconds' })
  .int('must be a whole number of seconds')
  .min(leaseRules.minSeconds, `must be at least ${leaseRules.minSeconds}`)
  .max(leaseRules.maxSeconds, `must be at most ${leaseRules.maxSeconds}`);
const lockTokenSchema = z
  .number({ message: 'must be the lock_token the claim answered' })
  .int('must be a whole number')
  .min(1, 'must be at least 1');

export const claimSchema = z.strictObject({
  task_id: uuidSchema,
  agent_name: agentNameSchema,
  lease_seconds: leaseSecondsSchema.optional(),
});
export const renewSchema = z.strictObject({
  task_id: uuidSchema,
  agent_name: agentNameSchema,
  lock_token: lockTokenSchema,
  lease_seconds: leaseSecondsSchema.optional(),
});
export const releaseSchema = z.strictObject({
  task_id: uuidSchema,
  agent_name: agentNameSchema.optional(),
  lock_token: lockTokenSchema.optional(),
});

async function lockLiveTask(tx: Db, taskId: string): Promise<Task> {
  const task = await findTask(tx, taskId, true);
  if (!task || task.deleted_at) throw new NotFoundError(`task ${taskId} not found`);
  return task;
}

/** 409 when a live claim holds the task (a lapsed one does not: the claimer releases it first). */
function assertUnclaimed(task: Pick<Task, 'id' | 'locked_by' | 'locked_at' | 'lease_expires_at'>, now: Date): void {
  if (task.locked_by === null || leaseLapsed(task, now)) return;
  throw new ConflictError(`task ${task.id} is already locked by ${task.locked_by}`, {
    locked_by: task.locked_by,
    locked_at: task.locked_at,
    lease_expires_at: task.lease_expires_at,
  });
}

/** The lock columns a claim read, and the task's JSON when it claimed it (claim_free_task, migration 1000). */
type FreeClaim = Pick<Task, 'id' | 'locked_by' | 'locked_at' | 'lease_expires_at'> & { claimed: Record<string, unknown> | null };

/** A claim in one statement: a plain read of the lock columns, and the claim with its traces only when the task looks free. */
const claimFreeTaskSql = `SELECT id, locked_by, locked_at, lease_expires_at,
       CASE WHEN locked_by IS NULL THEN claim_free_task($1, $2, $3, $4, $5, $6, $7, $8, '${SECRET_WORDS_SQL}') END AS claimed
  FROM tasks WHERE id = $1 AND deleted_at IS NULL`;

/**
 * POST /api/agent/claim: lock an unlocked live task for an agent, with a lease and a fresh fencing
 * token. Exactly one of concurrent claimers wins; the others get 409. A claim whose lease lapsed is
 * released first (audited `lease_expired`), then claimed anew. Unknown or soft-deleted task: 404.
 * The claiming agent is the actor. A free task is claimed in one round trip (a loser of a claim race pays one read): one
 * statement, its own transaction, claims it and writes its traces (claim_free_task, migration
 * 1000); a task held under a live lease is 409 from the same statement's answer. Anything else (a
 * lapsed lease, a row that moved under the statement, a deleted or unknown task, secret words in the
 * metadata, an event bus that is not the outbox) is decided under the row lock as before.
 */
export async function claimTask(deps: LockDeps, body: unknown, policy: LeasePolicy = defaultLeasePolicy): Promise<Task> {
  const { task_id, agent_name, lease_seconds } = parseInput(claimSchema, body ?? {}, 'claim');
  const db = requireDb(deps.storage);
  const lease = lease_seconds ?? policy.defaultLeaseSeconds;
  const event = deps.events.inline?.(taskEvent('claimed', task_id));
  if (event) {
    const now = deps.clock.now();
    const { rows } = await db.query<FreeClaim>(claimFreeTaskSql, [
      task_id,
      agent_name,
      now.toISOString(),
      lease,
      deps.ids.uuid(),
      event.channel,
      event.name,
      event.payload,
    ]);
    const seen = rows[0];
    if (seen?.claimed) {
      event.committed(db);
      return taskOfStateJson(seen.claimed) as Task;
    }
    if (seen) assertUnclaimed(seen, now);
  }
  return db.transaction((tx) => claimUnderLock(deps, tx, task_id, agent_name, lease));
}

/** The claim decided under the task's row lock: a lapsed lease is released first; a live one is 409. */
async function claimUnderLock(deps: LockDeps, tx: Db, taskId: string, agentName: string, leaseSeconds: number): Promise<Task> {
  const current = await expireLeaseIfLapsed(deps, tx, await lockLiveTask(tx, taskId));
  assertUnclaimed(current, deps.clock.now());
  const now = deps.clock.now();
  const { rows } = await tx.query<Task>(
    `UPDATE tasks SET locked_at = $3, locked_by = $2, lease_expires_at = $3::timestamptz + make_interval(secs => $4),
            lock_generation = lock_generation + 1, updated_at = $3
      WHERE id = $1 RETURNING ${taskColumns}`,
    [taskId, agentName, now, leaseSeconds],
  );
  const task = rows[0]!;
  await recordChange(deps, tx, claimChange(agentName, 'claimed', current, task));
  return task;
}

/** 409 unless `agent_name` holds the claim with `lock_token` (a zombie's stale token never matches a newer claim). */
function assertHolder(task: Task, agentName: string | undefined, lockToken: number | undefined): void {
  if (agentName !== undefined && task.locked_by !== agentName) {
    throw new ConflictError(
      task.locked_by ? `task ${task.id} is locked by ${task.locked_by}, not ${agentName}` : `task ${task.id} is not locked`,
      { reason: 'not_lock_holder', locked_by: task.locked_by },
    );
  }
  if (lockToken !== undefined && task.lock_token !== lockToken) {
    throw new ConflictError(`lock_token ${lockToken} is stale: the current claim of task ${task.id} has lock_token ${task.lock_token}`, {
      reason: 'stale_lock_token',
      lock_token: task.lock_token,
    });
  }
}

/**
 * POST /api/agent/claim/renew {task_id, agent_name, lock_token, lease_seconds?}: extends the
 * holder's lease from now. A wrong agent, a stale token, or a lease that already lapsed is 409
 * and changes nothing (a lapsed claim is the tick's or the next claimer's to release).
 */
export async function renewClaim(deps: LockDeps, body: unknown, policy: LeasePolicy = defaultLeasePolicy): Promise<Task> {
  const { task_id, agent_name, lock_token, lease_seconds } = parseInput(renewSchema, body ?? {}, 'renew');
  const db = requireDb(deps.storage);
  return db.transaction(async (tx) => {
    const before = await lockLiveTask(tx, task_id);
    assertHolder(before, agent_name, lock_token);
    const now = deps.clock.now();
    if (leaseLapsed(before, now)) {
      throw new ConflictError(`the lease of task ${task_id} lapsed at ${before.lease_expires_at!.toISOString()}: claim it again`, {
        reason: 'lease_expired',
        lease_expires_at: before.lease_expires_at,
      });
    }
    const { rows } = await tx.query<Task>(
      `UPDATE tasks SET lease_expires_at = $2::timestamptz + make_interval(secs => $3), updated_at = $2 WHERE id = $1 RETURNING ${taskColumns}`,
      [task_id, now, lease_seconds ?? policy.defaultLeaseSeconds],
    );
    const task = rows[0]!;
    await recordChange(deps, tx, claimChange(agent_name, 'lease_renewed', before, task));
    return task;
  });
}

/**
 * POST /api/agent/release {task_id, agent_name?, lock_token?}: with agent_name, releases only that
 * agent's lock; without, the operator releases whatever lock there is. 404 when there is no such
 * lock; a lock_token that is not the current claim's is 409.
 */
export async function releaseTask(deps: LockDeps, body: unknown): Promise<{ released: true }> {
  const { task_id, agent_name, lock_token } = parseInput(releaseSchema, body ?? {}, 'release');
  const db = requireDb(deps.storage);
  await db.transaction(async (tx) => {
    const before = await findTask(tx, task_id, true);
    const lockedByCaller = before && before.locked_by !== null && (agent_name === undefined || before.locked_by === agent_name);
    if (!before || !lockedByCaller) {
      throw new NotFoundError(agent_name ? `task ${task_id} is not locked by ${agent_name}` : `task ${task_id} not found or not locked`);
    }
    assertHolder(before, undefined, lock_token);
    const { rows } = await tx.query<Task>(`UPDATE tasks SET ${unlockSql}, updated_at = $2 WHERE id = $1 RETURNING ${taskColumns}`, [
      task_id,
      deps.clock.now(),
    ]);
    await recordChange(deps, tx, claimChange(agent_name ?? OPERATOR_ACTOR, 'released', before, rows[0]));
  });
  return { released: true };
}
