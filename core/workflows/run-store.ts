import { recordChange } from '../audit/record-change';
import { ConflictError, NotFoundError } from '../errors';
import type { Db, Deps } from '../ports';
import { parseId } from '../validation';
import { requireDb } from '../storage';
import { releaseClaimsOfEndedRuns } from '../agents/leases';
import { activeRunStatuses, endedRunsOfTasks, terminalRunStatuses, transitionFor, type RunTrigger } from './run-status';
import { runColumns, type WorkflowRun } from './run';

/** The SQL that every write to a run shares: lock, change, audit, event, task pointer. */

export async function findRun(db: Db, id: string, lock = false): Promise<WorkflowRun | undefined> {
  const { rows } = await db.query<WorkflowRun>(`SELECT ${runColumns} FROM workflow_runs WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0];
}

export async function lockRun(db: Db, id: string): Promise<WorkflowRun> {
  const run = await findRun(db, id, true);
  if (!run) throw new NotFoundError(`workflow run ${id} not found`);
  return run;
}

/** Refuses with 409 unless the transitions table lets `trigger` move the run from its status. */
export function assertTransition(run: WorkflowRun, trigger: RunTrigger, what: string = trigger): void {
  if (!transitionFor(run.status, trigger)) {
    throw new ConflictError(`cannot ${what} workflow run ${run.id}: its status is ${run.status}`, { status: run.status });
  }
}

/** Heartbeats, step reports and completion must come from the session that holds the claim (or its registered child). */
export function assertSession(run: WorkflowRun, sessionId: string): void {
  if (sessionId === run.claim_session_id || (run.gateway_session_id !== null && sessionId === run.gateway_session_id)) return;
  throw new ConflictError(
    run.claim_session_id
      ? `session ${sessionId} does not hold workflow run ${run.id}: it is claimed by session ${run.claim_session_id}`
      : `session ${sessionId} does not hold workflow run ${run.id}: the run is not claimed`,
    { reason: 'session_mismatch', status: run.status },
  );
}

/**
 * When a run goes back to the queue it leaves its sessions: the keys move to session_history
 * (the task sessions view derives earlier attempts from it) and the live ones are cleared.
 */
export const leaveSessionsSql = {
  session_history: `session_history || array_remove(ARRAY[gateway_session_id, CASE WHEN claim_session_id IS DISTINCT FROM gateway_session_id THEN claim_session_id END], NULL)`,
  gateway_session_id: 'NULL',
  gateway_session_active: 'false',
  claim_session_id: 'NULL',
} as const;

export function runEvent(action: string, run: Pick<WorkflowRun, 'id' | 'status' | 'workflow_type' | 'task_id'>) {
  return {
    name: 'run-updated',
    channel: 'stream' as const,
    payload: { action, runId: run.id, status: run.status, workflowType: run.workflow_type, taskId: run.task_id },
  };
}

export interface RunChange {
  /** Column -> value (parameterized). */
  set?: Record<string, unknown>;
  /** Column -> SQL expression over the row's current values (trusted, written here in core). */
  setSql?: Record<string, string>;
  returnsToQueue?: boolean;
  actor: string;
  /** Audit action: status_changed, claimed, heartbeat, updated, ... */
  action: string;
}

/**
 * Applies one change to a locked run inside the caller's transaction, keeps the task's
 * active_workflow_run_id in step, and records the audit row, state snapshot and run-updated event.
 */
export async function changeRun(
  deps: Pick<Deps, 'clock' | 'ids' | 'events'>,
  tx: Db,
  before: WorkflowRun,
  change: RunChange,
): Promise<WorkflowRun> {
  const set = { ...(change.set ?? {}) };
  const setSql: Record<string, string> = { ...(change.returnsToQueue ? leaveSessionsSql : {}), ...(change.setSql ?? {}) };
  const params: unknown[] = [before.id];
  const assignments = [
    ...Object.entries(setSql).map(([column, expression]) => `${column} = ${expression}`),
    ...Object.entries(set).map(([column, value]) => {
      params.push(
        value !== null && typeof value === 'object' && !(value instanceof Date) && !Array.isArray(value) ? JSON.stringify(value) : value,
      );
      return `${column} = $${params.length}`;
    }),
  ];
  params.push(deps.clock.now());
  assignments.push(`updated_at = $${params.length}`);
  const { rows } = await tx.query<WorkflowRun>(
    `UPDATE workflow_runs SET ${assignments.join(', ')} WHERE id = $1 RETURNING ${runColumns}`,
    params,
  );
  const after = rows[0]!;
  await syncTaskPointer(tx, after);
  if (!terminalRunStatuses.includes(before.status)) await releaseClaimsOfEndedRuns(deps, tx, [after]);
  await recordChange(deps, tx, {
    actor: change.actor,
    action: change.action,
    entityType: 'workflow_run',
    entityId: after.id,
    taskId: after.task_id,
    oldValue: before,
    newValue: after,
    event: runEvent(change.action, after),
  });
  return after;
}

/** tasks.active_workflow_run_id points at the task's live run and is cleared when that run ends. */
export async function syncTaskPointer(tx: Db, run: Pick<WorkflowRun, 'id' | 'task_id' | 'status'>): Promise<void> {
  if (!run.task_id) return;
  if (activeRunStatuses.includes(run.status)) {
    await tx.query('UPDATE tasks SET active_workflow_run_id = $2 WHERE id = $1 AND active_workflow_run_id IS DISTINCT FROM $2', [
      run.task_id,
      run.id,
    ]);
  } else {
    await releaseTaskPointers(tx, [run]);
  }
}

/**
 * What a batch of runs that ended frees on their tasks: the pointer at the live run and the claim
 * the run's agent holds. The tasks' rows are locked first, all of them, in id order, in one
 * statement: two transactions ending runs of the same tasks (two runners' recoveries, a recovery
 * and a budget stop) then queue in one order; each of the two writes alone locked in its own order
 * (the pointers' in the join's), so together they could deadlock.
 */
export async function releaseTasksOfEndedRuns(
  deps: Pick<Deps, 'clock' | 'ids' | 'events'>,
  tx: Db,
  runs: ReadonlyArray<Pick<WorkflowRun, 'id' | 'task_id' | 'status' | 'owner_agent_id' | 'target_agent_id'>>,
): Promise<void> {
  const tasks = [...new Set(endedRunsOfTasks(runs).map((r) => r.task_id))];
  if (tasks.length === 0) return;
  await tx.query('SELECT 1 FROM tasks WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE', [tasks]);
  await releaseTaskPointers(tx, runs);
  await releaseClaimsOfEndedRuns(deps, tx, runs);
}

/** The set-based half of syncTaskPointer for many runs at once: runs that ended stop being their task's live run. */
export async function releaseTaskPointers(tx: Db, runs: ReadonlyArray<Pick<WorkflowRun, 'id' | 'task_id' | 'status'>>): Promise<void> {
  const ended = endedRunsOfTasks(runs);
  if (ended.length === 0) return;
  await tx.query(
    `UPDATE tasks t SET active_workflow_run_id = NULL FROM unnest($1::uuid[], $2::text[]) AS x(task_id, run_id)
      WHERE t.id = x.task_id AND t.active_workflow_run_id = x.run_id`,
    [ended.map((r) => r.task_id), ended.map((r) => r.id)],
  );
}

/** Locks the run, runs `work` on it, and answers with the run as it stands after. */
export async function withRun<T>(deps: Deps, rawId: unknown, work: (tx: Db, run: WorkflowRun) => Promise<T>): Promise<T> {
  const id = parseId(rawId);
  return requireDb(deps.storage).transaction(async (tx) => work(tx, await lockRun(tx, id)));
}
