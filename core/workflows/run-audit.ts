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
  meta: { actor: string; action: string },
): Promise<void> {
  if (changes.length === 0) return;
  const at = deps.clock.now();
  const rows = changes.map(({ before, after }) => {
    const [old, next] = changedFields(before, after);
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
 * Whether two column values write the same JSON. Most columns of a run do not change and compare
 * equal at once; timestamps arrive as distinct Date objects and compare by instant. A tick
 * compares ~30 columns of each of thousands of runs, so stringifying every one cost it ~5%.
 */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof Date && b instanceof Date) {
    const [x, y] = [a.getTime(), b.getTime()];
    // an invalid date writes null, like any other invalid one
    return x === y || (Number.isNaN(x) && Number.isNaN(y));
  }
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The fields that differ between two versions of a run (updated_at aside), as {before, after} objects. */
function changedFields(before: WorkflowRun, after: WorkflowRun): [Record<string, unknown>, Record<string, unknown>] {
  const old: Record<string, unknown> = { id: before.id };
  const next: Record<string, unknown> = { id: after.id };
  for (const key of Object.keys(after) as Array<keyof WorkflowRun>) {
    if (key === 'updated_at') continue;
    if (!sameJson(before[key], after[key])) {
      old[key] = before[key];
      next[key] = after[key];
    }
  }
  return [old, next];
}
