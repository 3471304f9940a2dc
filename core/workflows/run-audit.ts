import type { Db, Deps } from '../ports';
import { isSecretKey } from '../secrets/redact';
import { runTimestampColumns, type WorkflowRun } from './run';

/** What the dispatcher needs of a run a batch changed: its event, task pointer, claim release and wake. */
export type ChangedRun = Pick<
  WorkflowRun,
  'id' | 'status' | 'workflow_type' | 'task_id' | 'owner_agent_id' | 'target_agent_id' | 'input_payload'
>;

/** One set-based change of runs, as the dispatcher makes them. */
export interface RunBatchChange {
  /**
   * Column → SQL expression over `r` (the run as it was), `x` (its batch row: `x.id` and the
   * `values` below) and `$1` (the time); `updated_at` is set to `$1` as well. No column that holds
   * JSON objects and none with a secret-shaped name: the audit copies are written without the
   * redaction pass (checked when the statement is built).
   */
  assignments: Readonly<Record<string, string>>;
  /** The runs to change, locked by the caller's transaction. */
  ids: readonly string[];
  /** Further values per run, in the order of `ids`, read by the assignments as `x.<name>`. */
  values?: ReadonlyArray<{ name: string; type: 'text' | 'uuid'; values: readonly unknown[] }>;
  actor: string;
  action: string;
}

/** Run columns that hold JSON objects: never assigned by a batch, since their audit copy would need the redaction pass. */
const jsonObjectColumns = new Set(['input_payload', 'output_summary', 'metadata']);

/** A column of the run `row` (a row-valued expression) as its JSON value (timestamps and the float as the API writes them, migration 1000's helpers). */
function jsonValueSql(row: string, column: string): string {
  const value = `(${row}).${column}`;
  if (runTimestampColumns.has(column)) return `js_iso(${value})`;
  if (column === 'cost_estimate') return `js_number(${value})`;
  return value;
}

/** `{id, …the assigned columns whose JSON value changed}` of the run `side` (was or now). */
function changedValuesSql(columns: readonly string[], side: 'was' | 'now'): string {
  return [
    `jsonb_build_object('id', c.id)`,
    ...columns.map(
      (column) =>
        `CASE WHEN ${jsonValueSql('c.was', column)} IS DISTINCT FROM ${jsonValueSql('c.now', column)} ` +
        `THEN jsonb_build_object('${column}', ${jsonValueSql(`c.${side}`, column)}) ELSE '{}'::jsonb END`,
    ),
  ].join(' || ');
}

/**
 * The set-based form of updating runs with recordChange, for the dispatcher, which changes
 * hundreds of runs in one statement: the UPDATE, an audit row per run (the assigned columns that
 * changed, plus the id) and a state snapshot per run (the whole run as its JSON, run_state_json of
 * migration 1010) are one statement, so no run travels to Node and back as JSON; one run-updated
 * event per batch names every run. Answers the changed runs.
 */
export async function updateRunBatch(deps: Pick<Deps, 'ids' | 'events'>, tx: Db, at: Date, change: RunBatchChange): Promise<ChangedRun[]> {
  if (change.ids.length === 0) return [];
  const columns = Object.keys(change.assignments).filter((column) => column !== 'updated_at');
  for (const column of columns) {
    if (jsonObjectColumns.has(column) || isSecretKey(column))
      throw new Error(`a run batch cannot assign ${column}: its audit copy needs the redaction pass`);
  }
  const values = change.values ?? [];
  const batch = [
    { name: 'id', type: 'uuid', values: change.ids },
    { name: 'snapshot_id', type: 'uuid', values: change.ids.map(() => deps.ids.uuid()) },
    ...values,
  ];
  const unnest = `unnest(${batch.map((b, i) => `$${i + 4}::${b.type}[]`).join(', ')}) AS x(${batch.map((b) => b.name).join(', ')})`;
  const set = Object.entries({ ...change.assignments, updated_at: '$1' })
    .map(([column, value]) => `${column} = ${value}`)
    .join(', ');
  const { rows } = await tx.query<ChangedRun>(
    `WITH was AS (
       SELECT r FROM workflow_runs r WHERE r.id = ANY($4::uuid[])
     ), changed AS (
       UPDATE workflow_runs r SET ${set}
         FROM ${unnest}
        WHERE r.id = x.id
       RETURNING r.id, r AS now, x.snapshot_id
     ), c AS (
       SELECT changed.id, changed.now, changed.snapshot_id, was.r AS was FROM changed JOIN was ON (was.r).id = changed.id
     ), audit AS (
       INSERT INTO audit_log (timestamp, actor, action, entity_type, entity_id, task_id, old_value, new_value)
       SELECT $1::timestamptz, $2::text, $3::text, 'workflow_run', c.id::text, (c.now).task_id,
              ${changedValuesSql(columns, 'was')}, ${changedValuesSql(columns, 'now')}
         FROM c
     ), snapshots AS (
       INSERT INTO entity_snapshots (id, entity_type, entity_id, state, reason, actor, created_at)
       SELECT c.snapshot_id, 'workflow_run', c.id::text, run_state_json(c.now), $3::text, $2::text, $1::timestamptz FROM c
     )
     SELECT (c.now).id, (c.now).status, (c.now).workflow_type, (c.now).task_id, (c.now).owner_agent_id,
            (c.now).target_agent_id, (c.now).input_payload
       FROM c`,
    [at, change.actor, change.action, ...batch.map((b) => b.values)],
  );
  if (rows.length === 0) return rows;
  await deps.events.publish(tx, {
    name: 'run-updated',
    channel: 'stream',
    payload: {
      action: change.action,
      runIds: rows.map((run) => run.id),
      runs: rows.map((run) => ({ runId: run.id, status: run.status, workflowType: run.workflow_type, taskId: run.task_id })),
    },
  });
  return rows;
}
