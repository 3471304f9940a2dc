import type { Db, Deps } from '../ports';
import { createSnapshot } from '../snapshots/create-snapshot';
import { createTask, updateTask } from '../tasks/commands';
import { decideApproval } from '../workflows/approvals';
import { cancelRun, overrideFailure } from '../workflows/run-operator-commands';
import { createRun } from '../workflows/run-create';
import type { ActionKind } from './catalog';
import type { ActionEnvelope } from './envelope';

export interface Performed {
  /** Resulting ids and state, stored as the receipt's detail.result. */
  result: Record<string, unknown>;
  /** Values for the rollback hint template. */
  hint: Record<string, unknown>;
}

interface Backing {
  /** true: runs inside the receipt's transaction (side effect, outcome and audit mirror commit together). */
  inTransaction: boolean;
  run(deps: Deps, e: ActionEnvelope, tx: Db): Promise<Performed>;
}

async function ownerOf(tx: Db, taskId: string): Promise<string | null | undefined> {
  const { rows } = await tx.query<{ owner: string | null }>('SELECT owner FROM tasks WHERE id = $1', [taskId]);
  return rows[0] ? rows[0].owner : undefined;
}

/**
 * The backing operation of each kind: the same core use cases the raw endpoints call. Each gets
 * deps whose storage is the receipt's transaction, so its writes commit or roll back with the
 * receipt's outcome.
 */
export const backingOperations: Record<ActionKind, Backing> = {
  'task.assign': {
    inTransaction: true,
    async run(deps, e, tx) {
      const previous = await ownerOf(tx, e.targetId);
      const task = await updateTask(deps, e.targetId, { owner: e.input.owner }, e.actor);
      return {
        result: { task_id: task.id, owner: task.owner, previous_owner: previous ?? null },
        hint: { targetId: e.targetId, previous_owner: previous ?? null },
      };
    },
  },
  'run.dispatch': {
    inTransaction: true,
    async run(deps, e) {
      const run = await createRun(deps, {
        workflow_type: e.input.template,
        task_id: e.targetId,
        input_payload: e.input.input_payload ?? {},
        actor: e.actor,
      });
      return { result: { new_run_id: run.id, status: run.status }, hint: { new_run_id: run.id } };
    },
  },
  'approval.decide': {
    inTransaction: true,
    async run(deps, e) {
      const { approval, run } = await decideApproval(deps, e.targetId, {
        decision: e.input.decision,
        ...(e.input.notes !== undefined ? { note: e.input.notes } : {}),
        actor: e.actor,
      });
      return {
        result: {
          approval_id: approval.id,
          decision: approval.status,
          decided_by: approval.decided_by,
          run_id: run.id,
          run_status: run.status,
        },
        hint: { targetId: e.targetId },
      };
    },
  },
  'run.cancel': {
    inTransaction: true,
    async run(deps, e) {
      const run = await cancelRun(deps, e.targetId, {
        actor: e.actor,
        ...(e.input.reason !== undefined ? { reason: e.input.reason } : {}),
      });
      return { result: { run_id: run.id, status: run.status }, hint: { targetId: e.targetId } };
    },
  },
  'run.redispatch': {
    inTransaction: true,
    async run(deps, e) {
      const run = await overrideFailure(deps, e.targetId, { next_status: 'queued', actor: e.actor });
      return { result: { run_id: run.id, status: run.status }, hint: { targetId: e.targetId } };
    },
  },
  'task.create': {
    inTransaction: true,
    async run(deps, e) {
      const { owner_agent, ...rest } = e.input;
      const task = await createTask(
        deps,
        { project_id: e.targetId, ...rest, ...(owner_agent !== undefined ? { owner: owner_agent } : {}) },
        e.actor,
      );
      return { result: { new_task_id: task.id, task }, hint: { new_task_id: task.id } };
    },
  },
  'task.update': {
    inTransaction: true,
    async run(deps, e) {
      const patch = e.input.patch as Record<string, unknown>;
      const task = await updateTask(deps, e.targetId, patch, e.actor);
      return {
        result: { task_id: task.id, changed_fields: Object.keys(patch), task },
        hint: { targetId: e.targetId, changed_fields: Object.keys(patch) },
      };
    },
  },
  'snapshot.create': {
    // the snapshot reads every table in its own REPEATABLE READ transaction and commits its file
    // with its own audit row, so it cannot nest in the receipt's transaction
    inTransaction: false,
    async run(deps, e) {
      const created = await createSnapshot(deps, {
        ...(e.input.name !== undefined ? { name: e.input.name as string } : {}),
        actor: e.actor,
      });
      return { result: { snapshot_id: created.snapshot_id, name: created.manifest.name }, hint: { snapshot_id: created.snapshot_id } };
    },
  },
};
