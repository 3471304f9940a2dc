import { leaseLapsedSql } from '../agents/leases';
import { runAgentSql, unpricedRunSql, usageAtSql } from '../costs/usage';
import { OUTBOX_RETENTION_MS } from '../ports/events';
import { recoveryRules } from '../workflows/recovery-rules';
import { stuckConditionSql } from '../workflows/run-queries';
import { sqlList, sqlTextArray } from '../sql-text';
import { activeRunStatuses, runStatusGroups, terminalRunStatuses } from '../workflows/run-status';
import { leaveSessionsSql } from '../workflows/run-store';

/**
 * The integrity checks of GET /api/doctor, as data: what leases, caps, pauses and exactly-once runs
 * can leave inconsistent. Each check finds rows with one SQL statement and repairs the rows it
 * found with another that re-checks the condition, so a row that healed between the two is left
 * alone. Parameters: $1 the time of the check, $2 the ids found (repair only), $3 the default lease
 * in seconds (repair only). A statement is bound to $1..$n up to the highest it names, so each must
 * name every parameter below that one (PostgreSQL cannot type an unused one).
 */
export interface DoctorCheck {
  kind: string;
  description: string;
  suggestedRepair: string;
  /** The audit entity type of the repaired rows; `bulk` checks write one audit row for all of them. */
  entityType: string;
  bulk?: boolean;
  /** Selects `id` (text) and `detail` (jsonb); it may lock the rows it selects (`lock`). */
  findSql: (lock: boolean) => string;
  /** Repairs the rows of $2 and answers `id` and `after` (jsonb) for each row it changed. */
  repairSql: string;
  /** The stream event a repaired row publishes, if its kind has one. */
  event?: (id: string) => { name: string; channel: 'events' | 'stream'; payload: unknown };
}

const forUpdate = (lock: boolean, of?: string) => (lock ? ` FOR UPDATE${of ? ` OF ${of}` : ''}` : '');
const taskChanged = (action: string) => (id: string) => ({
  name: 'task:changed',
  channel: 'events' as const,
  payload: { action, taskId: id },
});
const terminal = sqlTextArray(terminalRunStatuses);
const active = sqlTextArray(activeRunStatuses);
const unlock = 'locked_at = NULL, locked_by = NULL, lease_expires_at = NULL, updated_at = $1';
const taskAfter = `jsonb_build_object('locked_by', locked_by, 'lease_expires_at', lease_expires_at, 'lock_token', lock_generation)`;

/** The last run of the lock holder on the task ended after the claim was taken. */
const lockOfEndedRun = `t.locked_by IS NOT NULL AND EXISTS (
  SELECT 1 FROM (SELECT r.status, coalesce(r.finished_at, r.updated_at) AS ended_at FROM workflow_runs r
                  WHERE r.task_id = t.id AND t.locked_by IN (r.owner_agent_id, r.target_agent_id)
                  ORDER BY r.created_at DESC, r.id DESC LIMIT 1) last
   WHERE last.status = ANY(${terminal}) AND last.ended_at >= t.locked_at)`;

const danglingPointer = `t.active_workflow_run_id IS NOT NULL AND NOT EXISTS (
  SELECT 1 FROM workflow_runs r WHERE r.id::text = t.active_workflow_run_id::text AND r.task_id = t.id AND r.status = ANY(${active}))`;

const outboxStale = `created_at < $1::timestamptz - interval '${OUTBOX_RETENTION_MS} milliseconds'`;

/** Run usage per rollup key, from the runs (the attribution of core/costs/usage.ts) and from the rollup (migration 0960). */
const usageMeasures = 'runs, cost, input_tokens, output_tokens, unpriced_runs';
const rawUsage = `SELECT (${usageAtSql} AT TIME ZONE 'UTC')::date AS day, coalesce(${runAgentSql}, '') AS agent_id, coalesce(t.project_id::text, '') AS project_id,
    r.workflow_type, CASE WHEN r.billing = 'subscription' THEN 'subscription' ELSE 'metered' END AS billing,
    count(*) AS runs, round(coalesce(sum(r.cost_estimate::numeric), 0), 6) AS cost, coalesce(sum(r.input_tokens), 0) AS input_tokens,
    coalesce(sum(r.output_tokens), 0) AS output_tokens, count(*) FILTER (WHERE ${unpricedRunSql}) AS unpriced_runs
  FROM workflow_runs r LEFT JOIN tasks t ON t.id = r.task_id GROUP BY 1, 2, 3, 4, 5`;
const rolledUsage = `SELECT day, agent_id, project_id, workflow_type, billing, sum(runs) AS runs, round(sum(cost), 6) AS cost,
    sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens, sum(unpriced_runs) AS unpriced_runs
  FROM (SELECT day, agent_id, project_id, workflow_type, billing, ${usageMeasures} FROM run_usage_daily
        UNION ALL SELECT day, agent_id, project_id, workflow_type, billing, ${usageMeasures} FROM run_usage_delta) u
  GROUP BY 1, 2, 3, 4, 5 HAVING sum(runs) <> 0`;

export const doctorChecks: readonly DoctorCheck[] = [
  {
    kind: 'expired_task_lease',
    description: 'task claims whose lease lapsed and that no tick or claim has released yet',
    suggestedRepair: 'release the claim (as the dispatcher tick does)',
    entityType: 'task',
    findSql: (
      lock,
    ) => `SELECT t.id::text AS id, jsonb_build_object('locked_by', t.locked_by, 'lease_expires_at', t.lease_expires_at, 'lock_token', t.lock_generation) AS detail
      FROM tasks t WHERE ${leaseLapsedSql('t')} ORDER BY t.lease_expires_at, t.id${forUpdate(lock)}`,
    repairSql: `UPDATE tasks t SET ${unlock} WHERE t.id::text = ANY($2::text[]) AND ${leaseLapsedSql('t')} RETURNING t.id::text AS id, ${taskAfter} AS after`,
    event: taskChanged('released'),
  },
  {
    kind: 'lock_of_ended_run',
    description: 'task claims held by an agent whose last run on the task ended after the claim',
    suggestedRepair: 'release the claim',
    entityType: 'task',
    findSql: (
      lock,
    ) => `SELECT t.id::text AS id, jsonb_build_object('locked_by', t.locked_by, 'locked_at', t.locked_at, 'lock_token', t.lock_generation) AS detail
      FROM tasks t WHERE ${lockOfEndedRun} ORDER BY t.id${forUpdate(lock)}`,
    repairSql: `UPDATE tasks t SET ${unlock} WHERE t.id::text = ANY($2::text[]) AND ${lockOfEndedRun} RETURNING t.id::text AS id, ${taskAfter} AS after`,
    event: taskChanged('released'),
  },
  {
    kind: 'lock_without_lease',
    description: 'task claims without a lease (written by an import, a revert or a restore): they never lapse',
    suggestedRepair: 'give the claim the default lease from now, so it lapses unless its holder renews it',
    entityType: 'task',
    findSql: (lock) => `SELECT t.id::text AS id, jsonb_build_object('locked_by', t.locked_by, 'locked_at', t.locked_at) AS detail
      FROM tasks t WHERE t.locked_by IS NOT NULL AND t.lease_expires_at IS NULL ORDER BY t.id${forUpdate(lock)}`,
    repairSql: `UPDATE tasks t SET lease_expires_at = $1::timestamptz + make_interval(secs => $3), updated_at = $1
      WHERE t.id::text = ANY($2::text[]) AND t.locked_by IS NOT NULL AND t.lease_expires_at IS NULL RETURNING t.id::text AS id, ${taskAfter} AS after`,
    event: taskChanged('lease_granted'),
  },
  {
    kind: 'dangling_active_run',
    description: 'tasks whose active_workflow_run_id points at a run that ended, is missing, or belongs to another task',
    suggestedRepair: "point it at the task's newest run still in play, or clear it",
    entityType: 'task',
    findSql: (lock) => `SELECT t.id::text AS id, jsonb_build_object('active_workflow_run_id', t.active_workflow_run_id,
        'run_status', (SELECT r.status FROM workflow_runs r WHERE r.id::text = t.active_workflow_run_id::text)) AS detail
      FROM tasks t WHERE ${danglingPointer} ORDER BY t.id${forUpdate(lock)}`,
    repairSql: `UPDATE tasks t SET active_workflow_run_id = (SELECT r.id FROM workflow_runs r WHERE r.task_id = t.id AND r.status = ANY(${active})
                                                           ORDER BY r.created_at DESC, r.id DESC LIMIT 1), updated_at = $1
      WHERE t.id::text = ANY($2::text[]) AND ${danglingPointer} RETURNING t.id::text AS id, jsonb_build_object('active_workflow_run_id', active_workflow_run_id) AS after`,
    event: taskChanged('updated'),
  },
  {
    kind: 'unrecovered_silent_claim',
    description: `claimed runs without a heartbeat for ${recoveryRules.silentClaimAfterMs / 60_000} minutes that no tick has released yet`,
    suggestedRepair: 'release the claim back to dispatched (as the dispatcher tick does), retry_count + 1',
    entityType: 'workflow_run',
    findSql: (
      lock,
    ) => `SELECT r.id::text AS id, jsonb_build_object('claim_session_id', r.claim_session_id, 'heartbeat_at', r.heartbeat_at, 'claimed_at', r.claimed_at) AS detail
      FROM workflow_runs r WHERE ${stuckConditionSql.silent_claim} ORDER BY r.id${forUpdate(lock)}`,
    repairSql: `UPDATE workflow_runs r SET status = 'dispatched', dispatched_at = $1, claimed_at = NULL, heartbeat_at = NULL, retry_count = r.retry_count + 1,
        ${Object.entries(leaveSessionsSql)
          .map(([c, e]) => `${c} = ${e}`)
          .join(', ')},
        last_error = 'released by the doctor: no heartbeat since ' || coalesce(r.heartbeat_at, r.claimed_at, r.dispatched_at), updated_at = $1
      WHERE r.id::text = ANY($2::text[]) AND ${stuckConditionSql.silent_claim}
      RETURNING r.id::text AS id, jsonb_build_object('status', r.status, 'retry_count', r.retry_count) AS after`,
    event: (id) => ({ name: 'run-updated', channel: 'stream', payload: { action: 'released', runId: id, status: 'dispatched' } }),
  },
  {
    kind: 'stale_outbox_rows',
    description: `event outbox rows older than the replay retention (${OUTBOX_RETENTION_MS / 3_600_000} hours) that the runner has not pruned (it prunes only while it runs)`,
    suggestedRepair: 'delete them (and advance the prune watermark, so replays know they are gone)',
    entityType: 'event_outbox',
    bulk: true,
    findSql: (lock) =>
      `SELECT id::text AS id, jsonb_build_object('name', name, 'created_at', created_at) AS detail FROM event_outbox WHERE ${outboxStale} ORDER BY id${forUpdate(lock)}`,
    repairSql: `WITH gone AS (DELETE FROM event_outbox WHERE id::text = ANY($2::text[]) AND ${outboxStale} RETURNING id, position),
      mark AS (UPDATE event_outbox_watermark SET pruned_through = greatest(pruned_through, (SELECT max(position) FROM gone)) WHERE EXISTS (SELECT 1 FROM gone WHERE position IS NOT NULL))
      SELECT id::text AS id, 'null'::jsonb AS after FROM gone`,
  },
  {
    kind: 'inactive_budget_ledger',
    description: 'budget ledger events (budget_events) of budgets that are no longer active: no budget governs their period',
    suggestedRepair: 'delete them',
    entityType: 'budget_event',
    bulk: true,
    findSql: (
      lock,
    ) => `SELECT e.id::text AS id, jsonb_build_object('budget_id', e.budget_id, 'period_key', e.period_key, 'event_kind', e.event_kind) AS detail
      FROM budget_events e JOIN budgets b ON b.id = e.budget_id WHERE NOT b.active AND e.created_at <= $1 ORDER BY e.id${forUpdate(lock, 'e')}`,
    repairSql: `DELETE FROM budget_events e USING budgets b WHERE e.id::text = ANY($2::text[]) AND b.id = e.budget_id AND NOT b.active AND e.created_at <= $1
      RETURNING e.id::text AS id, 'null'::jsonb AS after`,
  },
  {
    kind: 'expired_idempotency_keys',
    description: 'run idempotency keys past their 24-hour lifetime',
    suggestedRepair: 'delete them (a new request with the key creates a new run either way)',
    entityType: 'run_idempotency_key',
    bulk: true,
    findSql: (lock) => `SELECT idempotency_key AS id, jsonb_build_object('run_id', run_id, 'expires_at', expires_at) AS detail
      FROM run_idempotency_keys WHERE expires_at <= $1 ORDER BY idempotency_key${forUpdate(lock)}`,
    repairSql: `DELETE FROM run_idempotency_keys WHERE idempotency_key = ANY($2::text[]) AND expires_at <= $1 RETURNING idempotency_key AS id, 'null'::jsonb AS after`,
  },
  {
    kind: 'run_without_target',
    description: 'runs dispatched, claimed, running or waiting for approval with no target agent: no agent cap or pause can count them',
    suggestedRepair: 'set the target to the owner, or else to the routed agent',
    entityType: 'workflow_run',
    findSql: (lock) => `SELECT r.id::text AS id, jsonb_build_object('status', r.status, 'owner_agent_id', r.owner_agent_id) AS detail
      FROM workflow_runs r WHERE r.target_agent_id IS NULL AND r.status IN ${sqlList(runStatusGroups.live)} ORDER BY r.id${forUpdate(lock)}`,
    repairSql: `UPDATE workflow_runs r SET target_agent_id = coalesce(r.owner_agent_id, (SELECT w.agent_id FROM workflow_agent_routing w WHERE w.workflow_type = r.workflow_type)), updated_at = $1
      WHERE r.id::text = ANY($2::text[]) AND r.target_agent_id IS NULL
        AND coalesce(r.owner_agent_id, (SELECT w.agent_id FROM workflow_agent_routing w WHERE w.workflow_type = r.workflow_type)) IS NOT NULL
      RETURNING r.id::text AS id, jsonb_build_object('target_agent_id', r.target_agent_id) AS after`,
    event: (id) => ({ name: 'run-updated', channel: 'stream', payload: { action: 'updated', runId: id } }),
  },
  {
    kind: 'usage_rollup_drift',
    description:
      'usage rollup keys (day|agent|project|workflow type|billing) whose runs, cost or tokens differ from the runs: the rollup cost reads and budgets use is a cache of run usage',
    suggestedRepair: 'rebuild the rollup from the runs (as POST /api/costs/rebuild)',
    entityType: 'usage_rollup',
    bulk: true,
    // the whole rollup is compared with the whole aggregate: one scan of the runs, nothing to lock
    findSql: () => `WITH raw AS (${rawUsage}), rolled AS (${rolledUsage})
      SELECT concat_ws('|', day, agent_id, project_id, workflow_type, billing) AS id,
             jsonb_build_object('runs', raw.runs, 'rollup_runs', rolled.runs, 'cost', raw.cost, 'rollup_cost', rolled.cost) AS detail
        FROM raw FULL JOIN rolled USING (day, agent_id, project_id, workflow_type, billing)
       WHERE (raw.runs, raw.cost, raw.input_tokens, raw.output_tokens, raw.unpriced_runs)
             IS DISTINCT FROM (rolled.runs, rolled.cost, rolled.input_tokens, rolled.output_tokens, rolled.unpriced_runs)
         AND $1::timestamptz IS NOT NULL
       ORDER BY 1`,
    repairSql: `SELECT k AS id, jsonb_build_object('rebuilt_rows', (SELECT run_usage_rebuild())) AS after FROM unnest($2::text[]) k WHERE $1::timestamptz IS NOT NULL`,
  },
];

export const doctorKinds: readonly string[] = doctorChecks.map((c) => c.kind);
