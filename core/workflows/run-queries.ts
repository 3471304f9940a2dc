import * as z from 'zod';
import { parseQuery } from '../query-params';
import { NotFoundError } from '../errors';
import type { Db, Deps } from '../ports';
import { requireDb } from '../storage';
import { pageAndTotal } from '../list-page';
import { parseId } from '../validation';
import { recoveryRules, type StuckReason } from './recovery-rules';
import { sqlList } from '../sql-text';
import { activeRunStatuses, runStatusGroups } from './run-status';
import { listRunsQuerySchema, pendingRunsQuerySchema, runColumns, runColumnsOf, workflowRunSchema, type WorkflowRun } from './run';
import { templateStepSchema, type TemplateStep } from './template';

/** Lists without a limit parameter (active, stuck) answer at most this many rows, with the full total. */
const LIST_CAP = 500;

const stepRowSchema = z.object({
  id: z.string(),
  step_name: z.string(),
  step_order: z.number().int(),
  status: z.string(),
  started_at: z.date().nullable(),
  finished_at: z.date().nullable(),
  error_message: z.string().nullable(),
  output: z.unknown(),
});
export type StepRow = z.infer<typeof stepRowSchema>;

/** GET /api/workflow-runs/:id: the run with its template's steps, its step rows, artifacts and approvals. */
export const runDetailSchema = workflowRunSchema.extend({
  template_steps: z.array(templateStepSchema),
  steps: z.array(stepRowSchema),
  artifacts: z.array(z.record(z.string(), z.unknown())),
  approvals: z.array(z.record(z.string(), z.unknown())),
});
export type RunDetail = z.infer<typeof runDetailSchema>;

/** GET /api/workflow-runs: newest first, filtered by workflow_type, status (verbatim), task_id. */
export async function listRuns(
  deps: Pick<Deps, 'storage'>,
  query: unknown,
): Promise<{ runs: WorkflowRun[]; total: number; truncated: boolean }> {
  const q = parseQuery(listRunsQuerySchema, query);
  const db = requireDb(deps.storage);
  const { rows, total, truncated } = await pageAndTotal<WorkflowRun>(
    db,
    {
      select: runColumns,
      from: 'workflow_runs',
      where: '($1::text IS NULL OR workflow_type = $1) AND ($2::text IS NULL OR status = $2) AND ($3::uuid IS NULL OR task_id = $3)',
      orderBy: 'created_at DESC, id DESC',
    },
    [q.workflow_type ?? null, q.status ?? null, q.task_id ?? null],
    q.limit,
  );
  return { runs: rows, total, truncated };
}

/** GET /api/workflow-runs/:id: the run with template_steps, ordered step rows, artifacts and approvals. */
export async function getRunDetail(deps: Pick<Deps, 'storage'>, rawId: unknown): Promise<RunDetail> {
  const id = parseId(rawId);
  const db = requireDb(deps.storage);
  return readRunDetail(db, id);
}

export async function readRunDetail(db: Db, id: string): Promise<RunDetail> {
  const { rows } = await db.query<WorkflowRun>(`SELECT ${runColumns} FROM workflow_runs WHERE id = $1`, [id]);
  const run = rows[0];
  if (!run) throw new NotFoundError(`workflow run ${id} not found`);
  const [template, steps, artifacts, approvals] = await Promise.all([
    db.query<{ steps: TemplateStep[] }>('SELECT steps FROM workflow_templates WHERE name = $1', [run.workflow_type]),
    db.query<StepRow>(
      `SELECT id, step_name, step_order, status, started_at, finished_at, error_message, output
         FROM workflow_steps WHERE run_id = $1 ORDER BY step_order`,
      [id],
    ),
    db.query('SELECT * FROM workflow_artifacts WHERE workflow_run_id = $1 ORDER BY created_at, id', [id]),
    db.query('SELECT * FROM workflow_approvals WHERE workflow_run_id = $1 ORDER BY created_at, id', [id]),
  ]);
  return { ...run, template_steps: template.rows[0]?.steps ?? [], steps: steps.rows, artifacts: artifacts.rows, approvals: approvals.rows };
}

/** GET /api/workflow-runs/pending: dispatched runs awaiting a claim, oldest dispatch first. */
export async function listPendingRuns(
  deps: Pick<Deps, 'storage'>,
  query: unknown,
): Promise<{ runs: WorkflowRun[]; total: number; truncated: boolean }> {
  const q = parseQuery(pendingRunsQuerySchema, query);
  const db = requireDb(deps.storage);
  const { rows, total, truncated } = await pageAndTotal<WorkflowRun>(
    db,
    {
      select: runColumns,
      from: 'workflow_runs',
      where: `status = 'dispatched' AND ($1::text IS NULL OR target_agent_id = $1)`,
      orderBy: 'dispatched_at, created_at, id',
    },
    [q.agent_id ?? null],
    q.limit,
  );
  return { runs: rows, total, truncated };
}

/** GET /api/workflow-runs/active: runs still in play (queued or worked on), newest first. */
export async function listActiveRuns(deps: Pick<Deps, 'storage'>): Promise<{ runs: WorkflowRun[]; total: number; truncated: boolean }> {
  const db = requireDb(deps.storage);
  const { rows, total, truncated } = await pageAndTotal<WorkflowRun>(
    db,
    { select: runColumns, from: 'workflow_runs', where: 'status = ANY($1::text[])', orderBy: 'created_at DESC, id DESC' },
    [activeRunStatuses],
    LIST_CAP,
  );
  return { runs: rows, total, truncated };
}

/**
 * The condition of each recovery rule, as SQL over workflow_runs `r` joined to its routing entry `w`
 * ($1 = now). Shared by the stuck list and the recovery of the dispatcher, so both agree.
 */
export const stuckConditionSql: Record<StuckReason, string> = {
  unclaimed: `r.status = 'dispatched' AND r.dispatched_at <= $1::timestamptz - interval '${recoveryRules.unclaimedAfterMs} milliseconds'`,
  silent_claim: `r.status = 'claimed' AND coalesce(r.heartbeat_at, r.claimed_at, r.dispatched_at) <= $1::timestamptz - interval '${recoveryRules.silentClaimAfterMs} milliseconds'`,
  timed_out_running: `r.status = 'running' AND coalesce(r.started_at, r.claimed_at) <= $1::timestamptz - make_interval(mins => coalesce(w.timeout_minutes, ${recoveryRules.defaultTimeoutMinutes}))`,
};

/** GET /api/workflow-runs/stuck: the runs the next dispatcher tick would recover, each with its stuck_reason. */
export async function listStuckRuns(
  deps: Pick<Deps, 'storage' | 'clock'>,
): Promise<{ runs: Array<WorkflowRun & { stuck_reason: StuckReason }>; total: number; truncated: boolean }> {
  const db = requireDb(deps.storage);
  const reasons = Object.entries(stuckConditionSql)
    .map(([reason, sql]) => `WHEN ${sql} THEN '${reason}'`)
    .join(' ');
  const { rows, total, truncated } = await pageAndTotal<WorkflowRun & { stuck_reason: StuckReason }>(
    db,
    {
      select: `${runColumnsOf('r')}, CASE ${reasons} END AS stuck_reason`,
      from: 'workflow_runs r LEFT JOIN workflow_agent_routing w ON w.workflow_type = r.workflow_type',
      where: `r.status IN ${sqlList(runStatusGroups.underway)} AND (${Object.values(stuckConditionSql)
        .map((s) => `(${s})`)
        .join(' OR ')})`,
      orderBy: 'r.updated_at, r.id',
    },
    [deps.clock.now()],
    LIST_CAP,
  );
  return { runs: rows, total, truncated };
}
