import type { Db, Deps } from '../ports';
import { redactSecrets } from '../secrets/redact';
import type { WorkflowRun } from './run';

/**
 * The set-based form of recordChange for the dispatcher, which changes hundreds of runs in one
 * statement: the same traces (an audit row and a state snapshot per run) written with one INSERT
 * each. The audit row keeps the fields that changed (plus the id), the snapshot the whole run: the
 * audit log's trigram index is the dominant cost of a large tick and grows with the row text.
 * One run-updated event per batch names every run, so a tick over thousands of runs does not
 * pay three round trips per run.
 */
export async function recordRunBatch(
  deps: Pick<Deps, 'clock' | 'ids' | 'events'>,
  tx: Db,
  changes: ReadonlyArray<{ before: WorkflowRun; after: WorkflowRun }>,
  meta: {
    actor: string;
    action: string;
    /**
     * The columns the statement assigned: no other can differ, so only these are compared (a
     * tick compares thousands of runs; every column of each cost it ~5% of its time).
     */
    assigned: readonly string[];
  },
): Promise<void> {
  if (changes.length === 0) return;
  const at = deps.clock.now();
  const columns = meta.assigned.filter((c) => c !== 'updated_at') as Array<keyof WorkflowRun>;
  const rows = changes.map(({ before, after }) => {
    const [old, next] = changedFields(before, after, columns);
    // the audit row is redacted like recordChange's; the snapshot stays whole for reverts
    return { id: after.id, snapshot_id: deps.ids.uuid(), task_id: after.task_id, old: redactSecrets(old), new: redactSecrets(next), state: after };
  });
  await tx.query(
    `WITH x AS (SELECT * FROM jsonb_to_recordset($4::jsonb) AS x(id text, snapshot_id uuid, task_id uuid, old jsonb, new jsonb, state jsonb)),
          audit AS (
            INSERT INTO audit_log (timestamp, actor, action, entity_type, entity_id, task_id, old_value, new_value)
            SELECT $1, $2, $3, 'workflow_run', x.id, x.task_id, x.old, x.new FROM x)
     INSERT INTO entity_snapshots (id, entity_type, entity_id, state, reason, actor, created_at)
     SELECT x.snapshot_id, 'workflow_run', x.id, x.state, $3, $2, $1 FROM x`,
    [at, meta.actor, meta.action, JSON.stringify(rows)],
  );
  await deps.events.publish(tx, {
    name: 'run-updated',
    channel: 'stream',
    payload: {
      action: meta.action,
      runIds: changes.map((c) => c.after.id),
      runs: changes.map(({ after }) => ({ runId: after.id, status: after.status, workflowType: after.workflow_type, taskId: after.task_id })),
    },
  });
}

/**
 * Whether two column values write the same JSON. Timestamps arrive as distinct Date objects and
 * compare by instant, without being stringified.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  // a value that appears or goes away, and two different plain values, are told apart without
  // stringifying: a timestamp set where there was none is most of what a tick compares
  if (a === undefined || b === undefined) return false;
  if (a === null) return writesNull(b);
  if (b === null) return writesNull(a);
  if (typeof a !== 'object' && typeof b !== 'object') return writesNull(a) && writesNull(b);
  if (a instanceof Date && b instanceof Date) {
    const x = a.getTime();
    const y = b.getTime();
    // an invalid date writes null, like any other invalid one
    return x === y || (Number.isNaN(x) && Number.isNaN(y));
  }
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Non-finite numbers and invalid dates are written as null. */
function writesNull(value: unknown): boolean {
  return (typeof value === 'number' && !Number.isFinite(value)) || (value instanceof Date && Number.isNaN(value.getTime()));
}

/** The fields among `columns` that differ between two versions of a run, as {before, after} objects. */
function changedFields(before: WorkflowRun, after: WorkflowRun, columns: ReadonlyArray<keyof WorkflowRun>): [Record<string, unknown>, Record<string, unknown>] {
  const old: Record<string, unknown> = { id: before.id };
  const next: Record<string, unknown> = { id: after.id };
  for (const key of columns) {
    if (!sameJson(before[key], after[key])) {
      old[key] = before[key];
      next[key] = after[key];
    }
  }
  return [old, next];
}
