/**
 * The tables a full-state snapshot carries (spec 02 "Snapshot artifact", tiers A to D), as data:
 * each with its primary key. The array order is the restore write order: the dependency chain of
 * spec 02 (workflows, projects, tasks, workflow_runs, workflow_steps, workflow_approvals,
 * workflow_artifacts), with workspaces placed before projects because projects reference it, then
 * the remaining tables each after the tables it references, and audit_log last.
 * Deletes of replace mode run over the reverse of this order.
 * A database test checks that every foreign key between these tables points backwards in this list.
 */
export interface SnapshotTable {
  name: string;
  tier: 'A' | 'B' | 'C' | 'D';
  primaryKey: readonly string[];
  /**
   * The table's unique keys besides the primary key, as SQL over the alias `$t` (with the index's
   * predicate, if partial): a merge restore cannot place an artifact row whose key a live row with
   * another primary key holds. A database test checks this list against the unique indexes.
   */
  uniqueKeys?: ReadonlyArray<{ name: string; key: string; where?: string }>;
}

export const snapshotTables: readonly SnapshotTable[] = [
  { name: 'workflows', tier: 'A', primaryKey: ['id'] },
  {
    name: 'workspaces',
    tier: 'A',
    primaryKey: ['id'],
    uniqueKeys: [
      { name: 'slug', key: '$t.slug' },
      { name: 'one default workspace', key: '$t.is_default', where: '$t.is_default' },
    ],
  },
  { name: 'projects', tier: 'A', primaryKey: ['id'] },
  { name: 'tasks', tier: 'A', primaryKey: ['id'] },
  { name: 'workflow_runs', tier: 'B', primaryKey: ['id'] },
  {
    name: 'workflow_steps',
    tier: 'B',
    primaryKey: ['id'],
    uniqueKeys: [{ name: 'run_id and step_order', key: '$t.run_id, $t.step_order' }],
  },
  { name: 'workflow_approvals', tier: 'B', primaryKey: ['id'] },
  { name: 'workflow_artifacts', tier: 'B', primaryKey: ['id'] },
  { name: 'saved_views', tier: 'A', primaryKey: ['id'] },
  { name: 'departments', tier: 'A', primaryKey: ['id'] },
  { name: 'agent_profiles', tier: 'A', primaryKey: ['agent_id'] },
  { name: 'workflow_templates', tier: 'B', primaryKey: ['name'] },
  { name: 'workflow_agent_routing', tier: 'B', primaryKey: ['workflow_type'] },
  // not in spec 02's list (agent safety's tables): an agent's cap and quota pause, and the keys that keep run creation exactly-once
  { name: 'agent_dispatch_controls', tier: 'B', primaryKey: ['agent_id'] },
  { name: 'run_idempotency_keys', tier: 'B', primaryKey: ['idempotency_key'] },
  {
    name: 'budgets',
    tier: 'C',
    primaryKey: ['id'],
    uniqueKeys: [
      {
        name: 'one active budget per scope, scope_id and period',
        key: "$t.scope, coalesce($t.scope_id, ''), $t.period",
        where: '$t.active',
      },
    ],
  },
  // not in spec 02's list: the operator's price table, so a restore prices as before
  { name: 'model_prices', tier: 'C', primaryKey: ['model_id', 'effective_from'] },
  {
    name: 'budget_events',
    tier: 'C',
    primaryKey: ['id'],
    uniqueKeys: [{ name: 'budget_id, period_key and event_kind', key: '$t.budget_id, $t.period_key, $t.event_kind' }],
  },
  { name: 'action_receipts', tier: 'C', primaryKey: ['action_id'] },
  { name: 'service_catalog', tier: 'D', primaryKey: ['id'] },
  { name: 'service_requests', tier: 'D', primaryKey: ['id'] },
  { name: 'department_daily_metrics', tier: 'D', primaryKey: ['department_id', 'day'] },
  { name: 'task_runs', tier: 'D', primaryKey: ['id'] },
  { name: 'cron_job_runs', tier: 'D', primaryKey: ['id'] },
  { name: 'agent_heartbeats', tier: 'D', primaryKey: ['agent_name'] },
  // not in spec 02's list (the table is ours): the operator's chat turns are state a restore should bring back
  { name: 'chat_messages', tier: 'D', primaryKey: ['id'] },
  { name: 'audit_log', tier: 'C', primaryKey: ['id'] },
];

export const snapshotTableByName = new Map(snapshotTables.map((t) => [t.name, t]));

/** Table names in the artifact's (canonical, alphabetical) order. */
export const snapshotTableNamesSorted: readonly string[] = snapshotTables.map((t) => t.name).sort();

/** Identifies a row by its primary key: the value for a one-column key, else an object of the key columns. */
export function primaryKeyOf(table: SnapshotTable, row: Record<string, unknown>): unknown {
  if (table.primaryKey.length === 1) return row[table.primaryKey[0]!];
  return Object.fromEntries(table.primaryKey.map((c) => [c, row[c]]));
}

/** A string that is equal for two rows exactly when their primary keys are equal. */
export function primaryKeyText(table: SnapshotTable, row: Record<string, unknown>): string {
  return JSON.stringify(table.primaryKey.map((c) => row[c]));
}
