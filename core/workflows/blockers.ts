import * as z from 'zod';
import type { Db, Deps } from '../ports';
import { requireDb } from '../storage';
import { closedTaskStatuses } from '../tasks/statuses';
import { stuckConditionSql } from './run-queries';
import { runStatusGroups } from './run-status';
import { sqlList } from '../sql-text';

/**
 * Blockers are derived at read time, never stored (spec 01 "Blocker"): blocked tasks, and runs that
 * cannot move on their own. The classification below is data: one row per source condition.
 */
export const blockerSchema = z.object({
  id: z.string(),
  sourceType: z.enum(['task', 'workflow_run']),
  sourceId: z.string(),
  blockerType: z.string(),
  description: z.string(),
  severity: z.enum(['low', 'medium', 'high']),
  createdAt: z.date(),
});
export type Blocker = z.infer<typeof blockerSchema>;

const severityRank = { low: 0, medium: 1, high: 2 } as const;
const MAX_BLOCKERS = 500;

/**
 * A failed or timed-out run `r` that is the latest run of a task still open (not finished, deleted or
 * archived): the failure still stands in the task's way. The inbox lists the same runs.
 */
export const standingRunFailureSql = `r.status IN ${sqlList(runStatusGroups.failed)} AND r.task_id IS NOT NULL AND EXISTS (SELECT 1 FROM tasks t WHERE t.id = r.task_id AND t.deleted_at IS NULL AND t.archived_at IS NULL AND t.status NOT IN ${sqlList([...closedTaskStatuses])}) AND NOT EXISTS (SELECT 1 FROM workflow_runs n WHERE n.task_id = r.task_id AND n.created_at > r.created_at)`;

/** A blocked task `t`'s blocker type: metadata.blocker_type, else dependency (it has dependencies) or manual. */
export const blockedTaskTypeSql = `coalesce(nullif(t.metadata->>'blocker_type', ''), CASE WHEN cardinality(t.dependency_ids) > 0 THEN 'dependency' ELSE 'manual' END)`;

/** Run conditions that block, each with its type, severity and the statuses its condition can hold in. */
const runBlockerRules = [
  {
    blockerType: 'approval',
    severity: 'medium',
    statuses: ['waiting_for_approval'],
    where: `r.status = 'waiting_for_approval'`,
    describe: `'waiting for approval: ' || coalesce((SELECT string_agg(a.step_name, ', ') FROM workflow_approvals a WHERE a.workflow_run_id = r.id AND a.status = 'pending'), 'no pending approval')`,
  },
  {
    blockerType: 'paused',
    severity: 'medium',
    statuses: ['paused'],
    where: `r.status = 'paused'`,
    describe: `'paused' || coalesce(': ' || (r.metadata->>'pause_reason'), '')`,
  },
  {
    blockerType: 'stale_run',
    severity: 'high',
    statuses: runStatusGroups.handedOut,
    where: `(${stuckConditionSql.unclaimed}) OR (${stuckConditionSql.silent_claim})`,
    describe: `'no agent is working on it: ' || r.status || ' since ' || to_char(coalesce(r.heartbeat_at, r.claimed_at, r.dispatched_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') || ' UTC'`,
  },
  {
    blockerType: 'run_failure',
    severity: 'high',
    statuses: runStatusGroups.failed,
    where: standingRunFailureSql,
    describe: `r.status || ': ' || coalesce(r.last_error, 'no error recorded')`,
  },
] as const;

/** GET /api/blockers: blocked tasks (type from metadata.blocker_type, else dependency or manual) and blocking runs. */
export async function listBlockers(deps: Pick<Deps, 'storage' | 'clock'>): Promise<{ blockers: Blocker[] }> {
  return { blockers: await readBlockers(requireDb(deps.storage), deps.clock.now()) };
}

/**
 * The blockers by the rules above, newest first: every one, or those of one run and its task (the
 * run page, core/workflows/run-page.ts), found by the same conditions.
 */
export async function readBlockers(db: Db, now: Date, scope?: { runId: string; taskId: string | null }): Promise<Blocker[]> {
  const [tasks, runs] = await Promise.all([
    scope && !scope.taskId
      ? { rows: [] }
      : db.query<Blocker>(
          `SELECT t.id, 'task' AS "sourceType", t.id AS "sourceId",
            ${blockedTaskTypeSql} AS "blockerType",
            coalesce(nullif(t.metadata->>'blocked_reason', ''), t.title) AS description,
            CASE t.priority WHEN 'critical' THEN 'high' WHEN 'high' THEN 'high' WHEN 'low' THEN 'low' ELSE 'medium' END AS severity,
            coalesce(t.status_updated_at, t.updated_at) AS "createdAt"
       FROM tasks t WHERE t.status = 'blocked' AND t.deleted_at IS NULL AND t.archived_at IS NULL${scope ? ' AND t.id = $1' : ''}
      ORDER BY "createdAt" DESC LIMIT ${MAX_BLOCKERS}`,
          scope ? [scope.taskId] : [],
        ),
    db.query<Blocker>(
      `SELECT r.id, 'workflow_run' AS "sourceType", r.id AS "sourceId", rule."blockerType", rule.severity,
            CASE rule."blockerType" ${runBlockerRules.map((b) => `WHEN '${b.blockerType}' THEN ${b.describe}`).join(' ')} END AS description,
            r.updated_at AS "createdAt"
       FROM workflow_runs r
       LEFT JOIN workflow_agent_routing w ON w.workflow_type = r.workflow_type
       CROSS JOIN LATERAL (SELECT * FROM (VALUES ${runBlockerRules.map((b, i) => `(${i}, '${b.blockerType}', '${b.severity}', ${b.where})`).join(', ')}) AS v(ord, "blockerType", severity, hit)
                            WHERE hit ORDER BY ord LIMIT 1) rule
      WHERE r.status IN ${sqlList([...new Set(runBlockerRules.flatMap((b) => b.statuses))])}${scope ? ' AND r.id = $2' : ''}
      ORDER BY r.updated_at DESC LIMIT ${MAX_BLOCKERS}`,
      scope ? [now, scope.runId] : [now],
    ),
  ]);
  const blockers = [...tasks.rows, ...runs.rows].sort((a, b) => new Date(b.createdAt).getTime() - new Date(a.createdAt).getTime());
  return blockers.slice(0, MAX_BLOCKERS);
}

/** GET /api/blockers/summary: total and, per blocker type, the count and the highest severity seen. */
export async function blockerSummary(deps: Pick<Deps, 'storage' | 'clock'>) {
  const { blockers } = await listBlockers(deps);
  const byType = new Map<string, { blockerType: string; count: number; severity: Blocker['severity'] }>();
  for (const b of blockers) {
    const entry = byType.get(b.blockerType) ?? { blockerType: b.blockerType, count: 0, severity: b.severity };
    entry.count++;
    if (severityRank[b.severity] > severityRank[entry.severity]) entry.severity = b.severity;
    byType.set(b.blockerType, entry);
  }
  return {
    total: blockers.length,
    byType: [...byType.values()].sort((a, b) => b.count - a.count || a.blockerType.localeCompare(b.blockerType)),
  };
}
