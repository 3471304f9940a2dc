import { OPERATOR_ACTOR } from '../actors';
import { recordChange } from '../audit/record-change';
import * as z from 'zod';
import { DEFAULT_QUOTA_PAUSE_SECONDS, pauseAgentDispatch } from '../agents/dispatch-controls';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import type { Db, Deps } from '../ports';
import { requireDb } from '../storage';
import { parseId, parseInput } from '../validation';
import { hardStopOfRun } from '../budgets/headroom';
import { heldRunStatuses, runStatusGroups, transitionFor, transitionOf } from './run-status';
import { BUDGET_STOP_ERROR, budgetCancel } from './budget-stop';
import { dispatchRunNow } from './dispatcher';
import { assertSession, assertTransition, changeRun, findRun, withRun } from './run-store';
import {
  completeRunSchema,
  failRunSchema,
  heartbeatRunSchema,
  pausingErrorClasses,
  patchRunSchema,
  reportStepSchema,
  startRunSchema,
  type WorkflowRun,
  workflowRunSchema,
} from './run';
import { assertCacheWithinInput, usageColumns, type UsageReport } from './usage-report';
import { finishedStepStatuses } from './run-status';

/*
 * What the session holding a run reports: heartbeats, start (or an operator's start of a queued run),
 * step reports, completion, failure (a quota failure requeues), session key changes; and what a
 * budget's hard stop answers to them.
 */

/** What a heartbeat or complete of a run that a budget's hard stop cancelled answers, so its agent stops. */
export const budgetStopSchema = z.object({
  stop: z.literal(true),
  reason: z.literal('budget_hard_stop'),
  budgets: z.array(z.record(z.string(), z.unknown())),
  run_id: z.string(),
  status: z.string(),
});
export type BudgetStop = z.infer<typeof budgetStopSchema>;

function stoppedByBudget(run: WorkflowRun): boolean {
  return run.status === transitionOf('budget_stop').to && (run.last_error?.startsWith(BUDGET_STOP_ERROR) ?? false);
}

async function budgetStop(
  deps: Pick<Deps, 'events'>,
  tx: Db,
  run: WorkflowRun,
  now: Date,
  budgets?: Array<Record<string, unknown>>,
): Promise<BudgetStop> {
  return {
    stop: true,
    reason: 'budget_hard_stop',
    budgets: budgets ?? (await hardStopOfRun(tx, deps.events, run.id, now))?.budgets ?? [],
    run_id: run.id,
    status: run.status,
  };
}

/**
 * A heartbeat or complete of a run a budget stopped: the run stays cancelled, the usage the report
 * moves forward is stored (it is still spend), and the answer is the stop.
 */
async function stoppedRunReport(deps: Deps, tx: Db, run: WorkflowRun, usage: UsageReport | undefined, actor: string): Promise<BudgetStop> {
  const after = usage
    ? await changeRun(deps, tx, run, { actor, action: 'usage_reported', set: { ...(await usageColumns(deps, tx, run, usage)) } })
    : run;
  return budgetStop(deps, tx, after, deps.clock.now());
}

/**
 * The usage of a heartbeat that is ahead of what the run holds: each counter and the cost only
 * grow (a late heartbeat with lower values changes nothing); the model is kept from the first
 * report that names one. Undefined when nothing moves forward.
 */
function usageAhead(run: WorkflowRun, report: UsageReport): UsageReport | undefined {
  const ahead: UsageReport = {};
  for (const field of ['input_tokens', 'output_tokens', 'cached_tokens', 'cache_write_tokens', 'cost_estimate'] as const) {
    const value = report[field];
    if (value !== undefined && (run[field] === null || value > run[field]!)) ahead[field] = value;
  }
  if (Object.keys(ahead).length === 0) return undefined;
  if (report.model_id !== undefined && run.model_id === null) ahead.model_id = report.model_id;
  return ahead;
}

/**
 * POST /api/workflow-runs/:id/heartbeat: from the holding session; keeps the claim alive. With
 * usage the run's spend moves at once, and a hard_stop budget of its chain at or over
 * its cap cancels the run in the same transaction: the answer is then {stop: true, reason, budgets},
 * as it is for every later heartbeat or complete of the run.
 */
export async function heartbeatRun(deps: Deps, rawId: unknown, body: unknown) {
  const { session_id, actor, ...report } = parseInput(heartbeatRunSchema, body ?? {}, 'heartbeat');
  return withRun(deps, rawId, async (tx, run) => {
    assertSession(run, session_id);
    const now = deps.clock.now();
    const usage = usageAhead(run, report);
    if (usage) assertCacheWithinInput(run, usage);
    if (stoppedByBudget(run)) return stoppedRunReport(deps, tx, run, usage, actor ?? session_id);
    if (!heldRunStatuses.includes(run.status)) {
      throw new ConflictError(`workflow run ${run.id} is ${run.status}: heartbeats are for claimed or running runs`, {
        status: run.status,
      });
    }
    if (!usage) {
      await tx.query('UPDATE workflow_runs SET heartbeat_at = $2, gateway_session_active = true, updated_at = $2 WHERE id = $1', [
        run.id,
        now,
      ]);
      await recordChange(deps, tx, {
        actor: actor ?? session_id,
        action: 'heartbeat',
        entityType: 'workflow_run',
        entityId: run.id,
        taskId: run.task_id,
        newValue: { session_id, heartbeat_at: now },
      });
      return { ok: true, run_id: run.id, status: run.status, heartbeat_at: now };
    }
    const after = await changeRun(deps, tx, run, {
      actor: actor ?? session_id,
      action: 'heartbeat',
      set: { heartbeat_at: now, gateway_session_active: true, ...(await usageColumns(deps, tx, run, usage)) },
    });
    const block = transitionFor(after.status, 'budget_stop') ? await hardStopOfRun(tx, deps.events, run.id, now) : undefined;
    if (!block) return { ok: true, run_id: run.id, status: after.status, heartbeat_at: now };
    const names = block.budgets.map((b) => String(b.name)).join(', ');
    await budgetCancel(deps, tx, [[run.id, `${names} (reported by the run's heartbeat)`]], now, actor ?? session_id);
    return budgetStop(deps, tx, { ...after, status: transitionOf('budget_stop').to }, now, block.budgets);
  });
}

/** POST /api/workflow-runs/:id/start: claimed to running, from the holding session. */
export async function startRun(deps: Deps, rawId: unknown, body: unknown): Promise<WorkflowRun | OperatorStart> {
  const input = parseInput(startRunSchema, body ?? {}, 'start');
  const sessionId = input.session_id;
  if (sessionId === undefined) return startQueuedRun(deps, rawId, input.actor ?? OPERATOR_ACTOR);
  return withRun(deps, rawId, async (tx, run) => {
    assertSession(run, sessionId);
    if (run.status === 'running') return run;
    assertTransition(run, 'start');
    const now = deps.clock.now();
    await tx.query(
      `UPDATE workflow_steps SET status = 'in_progress', started_at = coalesce(started_at, $3)
        WHERE run_id = $1 AND step_order = $2 AND status = 'pending'`,
      [run.id, run.current_step, now],
    );
    return changeRun(deps, tx, run, {
      actor: input.actor ?? run.owner_agent_id ?? sessionId,
      action: 'status_changed',
      set: { status: transitionOf('start').to, started_at: run.started_at ?? now, heartbeat_at: now },
    });
  });
}

/** The operator's start: the run as dispatched, and how waking its agent went. */
export const operatorStartSchema = workflowRunSchema.extend({ wake: z.object({ woken: z.boolean(), errors: z.array(z.string()) }) });
export type OperatorStart = z.infer<typeof operatorStartSchema>;

/**
 * POST /api/workflow-runs/:id/start without session_id (the original front end's Trigger is
 * create-then-start): a queued run is dispatched now, as a tick would dispatch it. A run that is not
 * queued still needs the agent's session_id; one the tick would leave queued (no route, a budget
 * hold) is a 409 saying why.
 */
async function startQueuedRun(deps: Deps, rawId: unknown, actor: string): Promise<OperatorStart> {
  const id = parseId(rawId);
  const db = requireDb(deps.storage);
  const before = await findRun(db, id);
  if (!before) throw new NotFoundError(`workflow run ${id} not found`);
  if (before.status !== 'queued') {
    throw new ValidationError(
      `session_id: required to start a ${before.status} run; without it only a queued run is started (dispatched now)`,
      [{ path: 'session_id', message: 'required unless the run is queued' }],
    );
  }
  const outcome = await dispatchRunNow(deps, id, actor);
  const after = (await findRun(db, id))!;
  if (!outcome.dispatched && after.status === 'queued') {
    const { rowCount } = await db.query('SELECT 1 FROM workflow_agent_routing WHERE workflow_type = $1', [after.workflow_type]);
    const [reason, code] = !rowCount
      ? [`no agent route for workflow type ${after.workflow_type}`, 'unrouted']
      : outcome.heldByBudget
        ? ['held by a budget', 'budget_hold']
        : outcome.heldByCap
          ? ['a concurrency cap is full or its agent is paused', 'capped']
          : ['taken by a concurrent dispatch', 'busy'];
    throw new ConflictError(`workflow run ${id} stays queued: ${reason}`, { status: after.status, reason: code });
  }
  return { ...after, wake: { woken: outcome.woken > 0, errors: outcome.wakeErrors } };
}

/** POST /api/workflow-runs/:id/complete: running or claimed to completed, output_summary and usage stored. */
export async function completeRun(deps: Deps, rawId: unknown, body: unknown): Promise<WorkflowRun | BudgetStop> {
  const input = parseInput(completeRunSchema, body ?? {}, 'complete');
  return withRun(deps, rawId, async (tx, run) => {
    assertSession(run, input.session_id);
    if (stoppedByBudget(run)) return stoppedRunReport(deps, tx, run, usageAhead(run, input), input.actor ?? input.session_id);
    assertTransition(run, 'complete');
    assertCacheWithinInput(run, input);
    const now = deps.clock.now();
    return changeRun(deps, tx, run, {
      actor: input.actor ?? run.owner_agent_id ?? input.session_id,
      action: 'status_changed',
      set: {
        status: transitionOf('complete').to,
        output_summary: input.output_summary,
        finished_at: now,
        started_at: run.started_at ?? now,
        gateway_session_active: false,
        ...(await usageColumns(deps, tx, run, input)),
      },
    });
  });
}

/**
 * POST /api/workflow-runs/:id/fail: the holding session ends the run as failed with last_error
 * and error_class. A quota_exhausted or rate_limited failure is the provider's: the run goes back
 * to the queue without spending a dispatch attempt, and dispatch to its agent pauses until the
 * retry time (once per pause window: see pauseAgentDispatch).
 */
export async function failRun(deps: Deps, rawId: unknown, body: unknown): Promise<WorkflowRun> {
  const input = parseInput(failRunSchema, body ?? {}, 'fail');
  return withRun(deps, rawId, async (tx, run) => {
    assertSession(run, input.session_id);
    if (pausingErrorClasses.includes(input.error_class)) return requeueOnQuota(deps, tx, run, input);
    assertTransition(run, 'fail');
    const now = deps.clock.now();
    await tx.query(
      `UPDATE workflow_steps SET status = 'failed', error_message = coalesce(error_message, $3), finished_at = $4
        WHERE run_id = $1 AND step_order = $2 AND status IN ('pending', 'in_progress')`,
      [run.id, run.current_step, input.error, now],
    );
    return changeRun(deps, tx, run, {
      actor: input.actor ?? run.owner_agent_id ?? input.session_id,
      action: 'status_changed',
      set: {
        status: transitionOf('fail').to,
        last_error: input.error,
        error_class: input.error_class,
        finished_at: now,
        gateway_session_active: false,
      },
    });
  });
}

async function requeueOnQuota(deps: Deps, tx: Db, run: WorkflowRun, input: z.infer<typeof failRunSchema>): Promise<WorkflowRun> {
  assertTransition(run, 'requeue_on_quota', 'fail');
  const now = deps.clock.now();
  const agent = run.target_agent_id ?? run.owner_agent_id;
  if (agent) {
    const seconds = input.retry_after_seconds ?? DEFAULT_QUOTA_PAUSE_SECONDS;
    await pauseAgentDispatch(deps, tx, agent, {
      until: new Date(now.getTime() + seconds * 1000),
      reason: `${input.error_class}: ${input.error}`,
      runId: run.id,
    });
  }
  // the step in progress starts over when the run is claimed again
  await tx.query(
    `UPDATE workflow_steps SET status = 'pending', started_at = NULL WHERE run_id = $1 AND step_order = $2 AND status = 'in_progress'`,
    [run.id, run.current_step],
  );
  return changeRun(deps, tx, run, {
    actor: input.actor ?? run.owner_agent_id ?? input.session_id,
    action: 'requeued_on_quota',
    returnsToQueue: true,
    setSql: { dispatch_attempts: 'greatest(dispatch_attempts - 1, 0)' },
    set: {
      status: transitionOf('requeue_on_quota').to,
      last_error: input.error,
      error_class: input.error_class,
      dispatched_at: null,
      claimed_at: null,
      heartbeat_at: null,
    },
  });
}

/**
 * PATCH /api/workflow-runs/:id: the child session key (gateway_session_id), its liveness,
 * metadata (merged), and usage reports. A session key can only be set while a session holds the run.
 */
export async function patchRun(deps: Deps, rawId: unknown, body: unknown): Promise<WorkflowRun> {
  const input = parseInput(patchRunSchema, body ?? {}, 'workflow run update');
  return withRun(deps, rawId, async (tx, run) => {
    if (input.gateway_session_id !== undefined && input.gateway_session_id !== null && !heldRunStatuses.includes(run.status)) {
      throw new ConflictError(`workflow run ${run.id} is ${run.status}: a session key can only be stored while a session holds the run`, {
        status: run.status,
      });
    }
    assertCacheWithinInput(run, input);
    const set: Record<string, unknown> = { ...(await usageColumns(deps, tx, run, input)) };
    if (input.gateway_session_id !== undefined) set.gateway_session_id = input.gateway_session_id;
    if (input.gateway_session_active !== undefined) set.gateway_session_active = input.gateway_session_active;
    if (input.metadata !== undefined) set.metadata = { ...run.metadata, ...input.metadata };
    return changeRun(deps, tx, run, { actor: input.actor ?? run.owner_agent_id ?? OPERATOR_ACTOR, action: 'updated', set });
  });
}

/**
 * PATCH /api/workflow-runs/:id/steps/:stepOrder: a step's status, output or error from the
 * holding session. current_step follows: a step in progress or failed is current; a finished
 * step moves the pointer to the next one (never past the last).
 */
export async function reportStep(deps: Deps, rawId: unknown, rawOrder: unknown, body: unknown) {
  const input = parseInput(reportStepSchema, body ?? {}, 'step report');
  const order = Number(rawOrder);
  if (!/^\d+$/.test(String(rawOrder)) || !Number.isSafeInteger(order)) {
    throw new ValidationError('stepOrder: must be a whole number of at least 0', [{ path: 'stepOrder', message: 'not a step order' }]);
  }
  return withRun(deps, rawId, async (tx, run) => {
    assertSession(run, input.session_id);
    if (!(runStatusGroups.working as readonly string[]).includes(run.status)) {
      throw new ConflictError(`workflow run ${run.id} is ${run.status}: steps are reported while it is claimed or running`, {
        status: run.status,
      });
    }
    const { rows: counted } = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM workflow_steps WHERE run_id = $1', [run.id]);
    const stepCount = counted[0]?.n ?? 0;
    const now = deps.clock.now();
    const { rows } = await tx.query(
      `UPDATE workflow_steps SET
          status = coalesce($3, status),
          output = CASE WHEN $4::boolean THEN $5::jsonb ELSE output END,
          error_message = CASE WHEN $6::boolean THEN $7 ELSE error_message END,
          started_at = CASE WHEN coalesce($3, status) <> 'pending' THEN coalesce(started_at, $8) ELSE started_at END,
          finished_at = CASE WHEN coalesce($3, status) = ANY($9::text[]) THEN coalesce(finished_at, $8) ELSE finished_at END,
          updated_at = $8
        WHERE run_id = $1 AND step_order = $2
        RETURNING id, step_name, step_order, status, started_at, finished_at, error_message, output`,
      [
        run.id,
        order,
        input.status ?? null,
        input.output !== undefined,
        JSON.stringify(input.output ?? null),
        input.error_message !== undefined,
        input.error_message ?? null,
        now,
        finishedStepStatuses,
      ],
    );
    const step = rows[0] as { status: string } | undefined;
    if (!step) throw new NotFoundError(`workflow run ${run.id} has no step ${order} (it has ${stepCount} steps, 0 to ${stepCount - 1})`);
    const current = finishedStepStatuses.includes(step.status) && step.status !== 'failed' ? Math.min(order + 1, stepCount - 1) : order;
    const after = await changeRun(deps, tx, run, {
      actor: input.actor ?? run.owner_agent_id ?? input.session_id,
      action: 'step_reported',
      set: { current_step: current, heartbeat_at: now },
    });
    return { step, run: after };
  });
}
