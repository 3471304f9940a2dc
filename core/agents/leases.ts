import { recordChanges, type Change } from '../audit/record-change';
import type { Db, Deps } from '../ports';
import { taskEvent } from '../tasks/commands';
import { taskColumns, type Task } from '../tasks/task';
import { SYSTEM_ACTOR } from '../workflows/governance';
import { endedRunsOfTasks } from '../workflows/run-status';

/**
 * Task claim leases, so a claim an agent abandoned does not hold its task for ever. A claim holds
 * the task until lease_expires_at; after that the dispatcher tick (or the next claim that finds it)
 * releases it. A claim without a lease (one written by an import or a revert) never lapses by
 * itself: the doctor reports it.
 */

type LeaseDeps = Pick<Deps, 'clock' | 'ids' | 'events'>;

/** The bounds and default of `lease_seconds` (TASK_LEASE_SECONDS overrides the default). */
export const leaseRules = { minSeconds: 30, maxSeconds: 86_400, defaultSeconds: 1800 } as const;

export interface LeasePolicy {
  /** The lease of a claim or renew that names none. */
  defaultLeaseSeconds: number;
}

export const defaultLeasePolicy: LeasePolicy = { defaultLeaseSeconds: leaseRules.defaultSeconds };

/** SQL: the lease of the row aliased `t` (or the bare table) has lapsed at $1. */
export const leaseLapsedSql = (alias = 'tasks', at = '$1') =>
  `${alias}.locked_by IS NOT NULL AND ${alias}.lease_expires_at IS NOT NULL AND ${alias}.lease_expires_at <= ${at}::timestamptz`;

export function leaseLapsed(task: Pick<Task, 'locked_by' | 'lease_expires_at'>, now: Date): boolean {
  return task.locked_by !== null && task.lease_expires_at !== null && task.lease_expires_at.getTime() <= now.getTime();
}

/** SET clause that frees a task's claim (the fencing token stays: it only grows). */
export const unlockSql = 'locked_at = NULL, locked_by = NULL, lease_expires_at = NULL';

/** The trace of a change to a task's claim: the audit row, state snapshot and task:changed event of `action`. */
export function claimChange(actor: string, action: string, before: Task, after: unknown): Change {
  return {
    actor,
    action,
    entityType: 'task',
    entityId: before.id,
    projectId: before.project_id,
    taskId: before.id,
    oldValue: before,
    newValue: after,
    event: taskEvent(action, before.id),
  };
}

/** Releases the lapsed claims of `tasks` (locked by the caller): one `lease_expired` audit row and task:changed event each. */
async function expireLeases(deps: LeaseDeps, tx: Db, tasks: readonly Task[]): Promise<Task[]> {
  if (tasks.length === 0) return [];
  const { rows } = await tx.query<Task>(
    `UPDATE tasks SET ${unlockSql}, updated_at = $2 WHERE id = ANY($1::uuid[]) RETURNING ${taskColumns}`,
    [tasks.map((t) => t.id), deps.clock.now()],
  );
  const before = new Map(tasks.map((t) => [t.id, t]));
  await recordChanges(
    deps,
    tx,
    rows.map((after) => claimChange(SYSTEM_ACTOR, 'lease_expired', before.get(after.id)!, after)),
  );
  return rows;
}

/** Releases the task's claim if its lease has lapsed (the caller holds the row lock); answers the task as it now stands. */
export async function expireLeaseIfLapsed(deps: LeaseDeps, tx: Db, task: Task): Promise<Task> {
  if (!leaseLapsed(task, deps.clock.now())) return task;
  return (await expireLeases(deps, tx, [task]))[0]!;
}

/** The tick's lease sweep: every lapsed claim released, in batches that concurrent ticks share (SKIP LOCKED). */
export async function releaseExpiredLeases(deps: LeaseDeps, db: Db, batchSize: number, maxBatches: number): Promise<number> {
  let total = 0;
  for (let i = 0; i < maxBatches; i++) {
    const released = await db.transaction(async (tx) => {
      const { rows } = await tx.query<Task>(
        `SELECT ${taskColumns} FROM tasks WHERE ${leaseLapsedSql()} ORDER BY lease_expires_at, id LIMIT ${batchSize} FOR UPDATE SKIP LOCKED`,
        [deps.clock.now()],
      );
      return (await expireLeases(deps, tx, rows)).length;
    });
    total += released;
    if (released < batchSize) break;
  }
  return total;
}

/**
 * A run that ended frees the claim its agent (owner or target) holds on the run's task, in the
 * caller's transaction: audited `released` by system with the run that ended.
 */
export async function releaseClaimsOfEndedRuns(
  deps: LeaseDeps,
  tx: Db,
  runs: ReadonlyArray<{
    id: string;
    status: string;
    task_id: string | null;
    owner_agent_id: string | null;
    target_agent_id: string | null;
  }>,
): Promise<number> {
  const ended = endedRunsOfTasks(runs).filter((r) => r.owner_agent_id || r.target_agent_id);
  if (ended.length === 0) return 0;
  const { rows: before } = await tx.query<Task & { run_id: string }>(
    `SELECT ${taskColumns
      .split(', ')
      .map((c) => `t.${c}`)
      .join(', ')}, x.run_id
       FROM unnest($1::uuid[], $2::text[], $3::text[], $4::uuid[]) AS x(task_id, owner, target, run_id)
       JOIN tasks t ON t.id = x.task_id AND t.locked_by IN (x.owner, x.target)
      ORDER BY t.id FOR UPDATE OF t`,
    [
      ended.map((r) => r.task_id),
      ended.map((r) => r.owner_agent_id ?? ''),
      ended.map((r) => r.target_agent_id ?? ''),
      ended.map((r) => r.id),
    ],
  );
  // one task may be the task of several ended runs: the first one (by task id order) is named
  const endedBy = new Map<string, { task: Task; runId: string }>();
  for (const { run_id, ...task } of before) if (!endedBy.has(task.id)) endedBy.set(task.id, { task, runId: run_id });
  if (endedBy.size === 0) return 0;
  const { rows } = await tx.query<Task>(
    `UPDATE tasks SET ${unlockSql}, updated_at = $2 WHERE id = ANY($1::uuid[]) RETURNING ${taskColumns}`,
    [[...endedBy.keys()], deps.clock.now()],
  );
  await recordChanges(
    deps,
    tx,
    rows.map((after) => {
      const { task, runId } = endedBy.get(after.id)!;
      return claimChange(SYSTEM_ACTOR, 'released', task, { ...after, released_because: { run_id: runId, reason: 'run_ended' } });
    }),
  );
  return rows.length;
}
