import * as z from 'zod';
import { OPERATOR_ACTOR } from '../actors';
import { ConflictError, NotFoundError } from '../errors';
import type { Db, Deps } from '../ports';
import { requireDb } from '../storage';
import { findTask } from '../tasks/queries';
import { agentNameSchema, taskColumns, type Task } from '../tasks/task';
import { parseInput, uuidSchema } from '../validation';
import { recordChange } from '../audit/record-change';
import { claimChange, defaultLeasePolicy, expireLeaseIfLapsed, leaseLapsed, leaseRules, unlockSql, type LeasePolicy } from './leases';

type LockDeps = Pick<Deps, 'storage' | 'clock' | 'ids' | 'events'>;

const leaseSecondsSchema = z
  .number({ message: 'must be a number of seconds' })
  .int('must be a whole number of seconds')
  .min(leaseRules.minSeconds, `must be at least ${leaseRules.minSeconds}`)
  .max(leaseRules.maxSeconds, `must be at most ${leaseRules.maxSeconds}`);
const lockTokenSchema = z.number({ message: 'must be the lock_token the claim answered' }).int('must be a whole number').min(1, 'must be at least 1');

export const claimSchema = z.strictObject({ task_id: uuidSchema, agent_name: agentNameSchema, lease_seconds: leaseSecondsSchema.optional() });
export const renewSchema = z.strictObject({ task_id: uuidSchema, agent_name: agentNameSchema, lock_token: lockTokenSchema, lease_seconds: leaseSecondsSchema.optional() });
export const releaseSchema = z.strictObject({ task_id: uuidSchema, agent_name: agentNameSchema.optional(), lock_token: lockTokenSchema.optional() });

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

/** Claims the task if its row is still the version read (xmin), free and live: the claim's columns and nothing else change. */
const claimIfUnchangedSql = `UPDATE tasks SET locked_at = $3::timestamptz, locked_by = $2, lease_expires_at = $3::timestamptz + make_interval(secs => $4::int),
        lock_generation = lock_generation + 1, updated_at = $3::timestamptz
  WHERE id = $1::uuid AND xmin = $5::xid AND locked_by IS NULL AND deleted_at IS NULL
  RETURNING ${taskColumns}`;

/** What a claim reads before deciding: only what the decision needs (most claimers of a race lose), and the row's version. */
type ClaimRead = Pick<Task, 'id' | 'locked_by' | 'locked_at' | 'lease_expires_at' | 'updated_at'> & { row_version: string };

/**
 * POST /api/agent/claim: lock an unlocked live task for an agent, with a lease and a fresh fencing
 * token. Exactly one of concurrent claimers wins; the others get 409. A claim whose lease lapsed is
 * released first (audited `lease_expired`), then claimed anew. Unknown or soft-deleted task: 404.
 * The claiming agent is the actor. One plain read decides most of a race: a task held under a live
 * lease is 409 at once. A task that looked free is claimed by one UPDATE guarded by the row version
 * read, sent with BEGIN, its traces going with the COMMIT: with the read, three round trips where
 * locking, re-reading and updating took five (issue 13). Since the guard holds, the row before the
 * claim is the row the UPDATE returns with the lock columns as read. A guard that finds the row
 * moved (another claim, most likely) decides under the row lock in the same transaction; a lapsed
 * lease takes that way from the start.
 */
export async function claimTask(deps: LockDeps, body: unknown, policy: LeasePolicy = defaultLeasePolicy): Promise<Task> {
  const { task_id, agent_name, lease_seconds } = parseInput(claimSchema, body ?? {}, 'claim');
  const db = requireDb(deps.storage);
  const lease = lease_seconds ?? policy.defaultLeaseSeconds;
  const { rows: seen } = await db.query<ClaimRead>(
    'SELECT id, locked_by, locked_at, lease_expires_at, updated_at, xmin::text AS row_version FROM tasks WHERE id = $1 AND deleted_at IS NULL',
    [task_id],
  );
  const read = seen[0];
  if (read) assertUnclaimed(read, deps.clock.now());
  if (!read || read.locked_by !== null) return db.transaction((tx) => claimUnderLock(deps, tx, task_id, agent_name, lease));
  const params = [task_id, agent_name, deps.clock.now().toISOString(), lease, read.row_version];
  return db.transactionFrom(claimIfUnchangedSql, params, async (tx, claimed) => {
    if (claimed.rowCount !== 1) return claimUnderLock(deps, tx, task_id, agent_name, lease);
    const after = claimed.rows[0] as Task;
    const before: Task = {
      ...after,
      locked_at: read.locked_at,
      locked_by: read.locked_by,
      lease_expires_at: read.lease_expires_at,
      lock_token: after.lock_token - 1,
      updated_at: read.updated_at,
    };
    await recordChange(deps, tx, claimChange(agent_name, 'claimed', before, after));
    return after;
  });
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
      throw new NotFoundError(
        agent_name ? `task ${task_id} is not locked by ${agent_name}` : `task ${task_id} not found or not locked`,
      );
    }
    assertHolder(before, undefined, lock_token);
    const { rows } = await tx.query<Task>(
      `UPDATE tasks SET ${unlockSql}, updated_at = $2 WHERE id = $1 RETURNING ${taskColumns}`,
      [task_id, deps.clock.now()],
    );
    await recordChange(deps, tx, claimChange(agent_name ?? OPERATOR_ACTOR, 'released', before, rows[0]));
  });
  return { released: true };
}
