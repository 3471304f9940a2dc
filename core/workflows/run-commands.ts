import { OPERATOR_ACTOR } from '../actors';
import { recordChange } from '../audit/record-change';
import * as z from 'zod';
import { DEFAULT_QUOTA_PAUSE_SECONDS, pauseAgentDispatch } from '../agents/dispatch-controls';
import { ActiveRunExistsError, ConflictError, IdempotencyConflictError, NotFoundError, ValidationError } from '../errors';
import type { Db, Deps } from '../ports';
import { SECRET_WORDS_SQL } from '../secrets/redact';
import { requireDb } from '../storage';
import { parseId, parseInput } from '../validation';
import { hardStopOfRun } from '../budgets/headroom';
import { requireGovernance } from './governance';
import { getRunDetail, runDetailSchema } from './run-queries';
import { activeRunStatuses, heldRunStatuses, resumeTarget, runStatusGroups, transitionFor, transitionOf } from './run-status';
import { lookUpKey, rememberKey, requestHash } from './run-idempotency';
import { BUDGET_STOP_ERROR, budgetCancel, dispatchRunNow } from './dispatcher';
import { assertSession, assertTransition, changeRun, findRun, lockRun, runEvent, syncTaskPointer } from './run-store';
import {
  cancelRunSchema,
  claimRunSchema,
  completeRunSchema,
  createRunSchema,
  escalateRunSchema,
  failRunSchema,
  heartbeatRunSchema,
  idempotencyKeySchema,
  pausingErrorClasses,
  overrideFailureSchema,
  patchRunSchema,
  pauseRunSchema,
  reassignRunSchema,
  reportStepSchema,
  resumeRunSchema,
  runColumns,
  runOfStateJson,
  startRunSchema,
  type CreateRunInput,
  type WorkflowRun,
  workflowRunSchema,
} from './run';
import { findTemplate } from './templates';
import { stepNameOf } from './template';
import { assertCacheWithinInput, usageColumns, type UsageReport } from './usage-report';
import { finishedStepStatuses } from './run-status';

/*
 * Run operations. Operator-side operations (create, cancel, override-failure, pause, resume,
 * reassign, escalate) check governance for their actor; agent-side ones (claim, start,
 * heartbeat, step reports, complete, fail) check the session that holds the run.
 */

/**
 * Inserts a queued run and its step rows inside the caller's transaction:
 * 1. the template must exist and be active; 2. the task, when named, must exist;
 * 3. steps are copied from the template with dense step_order 0..N-1; 4. audit, event, task pointer.
 */
export async function insertQueuedRun(deps: Deps, tx: Db, input: Omit<CreateRunInput, 'actor'>, actor: string): Promise<WorkflowRun> {
  const template = await findTemplate(tx, input.workflow_type);
  if (!template) {
    throw new ValidationError(`workflow_type: no workflow template named ${input.workflow_type}`, [{ path: 'workflow_type', message: 'no such template' }]);
  }
  if (!template.is_active) throw new ConflictError(`workflow template ${input.workflow_type} is inactive`);
  let projectId: string | null = null;
  if (input.task_id) {
    const exclusive = template.exclusive_per_task || (await routeIsExclusive(tx, input.workflow_type));
    // an exclusive workflow locks the task row, so two creates for one task cannot both see it free
    const { rows } = await tx.query<{ project_id: string }>(`SELECT project_id FROM tasks WHERE id = $1 AND deleted_at IS NULL${exclusive ? ' FOR UPDATE' : ''}`, [input.task_id]);
    if (!rows[0]) throw new ValidationError(`task_id: task ${input.task_id} does not exist`, [{ path: 'task_id', message: 'no such task' }]);
    projectId = rows[0].project_id;
    if (exclusive) await assertNoActiveRun(tx, input.task_id);
  }
  const id = deps.ids.uuid();
  const now = deps.clock.now();
  const { rows } = await tx.query<WorkflowRun>(
    `INSERT INTO workflow_runs (id, workflow_type, status, task_id, owner_agent_id, input_payload, metadata, created_by, created_at, updated_at)
     VALUES ($1, $2, 'queued', $3, $4, $5, $6, $7, $8, $8) RETURNING ${runColumns}`,
    [id, input.workflow_type, input.task_id, input.owner_agent_id, JSON.stringify(input.input_payload), JSON.stringify(input.metadata), actor, now],
  );
  const names = template.steps.map(stepNameOf);
  await tx.query(
    `INSERT INTO workflow_steps (id, run_id, step_name, step_order, status, created_at, updated_at)
     SELECT s.id, $1, s.name, s.ord - 1, 'pending', $2, $2 FROM unnest($3::uuid[], $4::text[]) WITH ORDINALITY AS s(id, name, ord)`,
    [id, now, names.map(() => deps.ids.uuid()), names],
  );
  const run = rows[0]!;
  await syncTaskPointer(tx, run);
  await recordChange(deps, tx, {
    actor,
    action: 'created',
    entityType: 'workflow_run',
    entityId: id,
    taskId: run.task_id,
    projectId,
    newValue: run,
    event: runEvent('created', run),
  });
  return run;
}

async function routeIsExclusive(tx: Db, workflowType: string): Promise<boolean> {
  const { rows } = await tx.query<{ exclusive_per_task: boolean }>('SELECT exclusive_per_task FROM workflow_agent_routing WHERE workflow_type = $1', [workflowType]);
  return rows[0]?.exclusive_per_task ?? false;
}

/** 409 active_run_exists when the task has a run still in play (queued, dispatched, held or paused). */
async function assertNoActiveRun(tx: Db, taskId: string): Promise<void> {
  const { rows } = await tx.query<{ id: string; status: string }>(
    'SELECT id, status FROM workflow_runs WHERE task_id = $1 AND status = ANY($2::text[]) ORDER BY created_at DESC, id LIMIT 1',
    [taskId, activeRunStatuses],
  );
  if (rows[0]) throw new ActiveRunExistsError(taskId, rows[0].id, rows[0].status);
}

/** POST /api/workflow-runs: the run's detail; `duplicate: true` when an idempotency key answered an earlier run. */
export const createdRunSchema = runDetailSchema.extend({ duplicate: z.literal(true).optional() });
export type CreatedRun = z.infer<typeof createdRunSchema>;

/**
 * POST /api/workflow-runs (governance: launch_workflow). With an idempotency key (the
 * Idempotency-Key header, or the body's idempotency_key; the header wins) a repeat of the same
 * request answers the first run with duplicate: true, and another request under the key is 409.
 */
export async function createRun(deps: Deps, body: unknown, options: { idempotencyKey?: unknown } = {}): Promise<CreatedRun> {
  const { idempotency_key: bodyKey, ...input } = parseInput(createRunSchema, body ?? {}, 'workflow run');
  const key = options.idempotencyKey !== undefined ? parseInput(idempotencyKeySchema, options.idempotencyKey, 'Idempotency-Key') : bodyKey;
  const db = requireDb(deps.storage);
  const outcome = await db.transaction(async (tx) => {
    await requireGovernance(tx, 'launch_workflow', input.actor);
    if (key === undefined) return { runId: (await insertQueuedRun(deps, tx, input, input.actor)).id, duplicate: false };
    const hash = requestHash(input);
    const now = deps.clock.now();
    const found = await lookUpKey(tx, key, hash, now);
    if (found.kind === 'replay') return { runId: found.runId, duplicate: true };
    if (found.kind === 'conflict') throw new IdempotencyConflictError(key, found.runId);
    const run = await insertQueuedRun(deps, tx, input, input.actor);
    await rememberKey(tx, key, hash, run.id, now);
    return { runId: run.id, duplicate: false };
  });
  const detail = await getRunDetail(deps, outcome.runId);
  return outcome.duplicate ? { ...detail, duplicate: true } : detail;
}

/** Locks the run, runs `work` on it, and answers with the run as it stands after. */
async function withRun<T>(deps: Deps, rawId: unknown, work: (tx: Db, run: WorkflowRun) => Promise<T>): Promise<T> {
  const id = parseId(rawId);
  return requireDb(deps.storage).transaction(async (tx) => work(tx, await lockRun(tx, id)));
}

export const claimResultSchema = z.object({
  claimed: z.literal(true),
  /** True when the same session claimed this run before (a retried claim). */
  already: z.boolean(),
  run: workflowRunSchema,
});
export type ClaimResult = z.infer<typeof claimResultSchema>;

/**
 * A claim that the run's state already answers without a write: the same session's retry
 * (answered with the run), or a run some other session holds (409). Undefined: the claim needs
 * the locked path.
 */
function settledClaim(run: Pick<WorkflowRun, 'id' | 'status' | 'claim_session_id'>, sessionId: string): 'retry' | undefined {
  if (run.status === 'claimed' && run.claim_session_id === sessionId) return 'retry';
  if (run.status !== 'dispatched' && run.claim_session_id) {
    throw new ConflictError(`workflow run ${run.id} is already ${run.status} by session ${run.claim_session_id}`, { status: run.status, reason: 'already_claimed' });
  }
  return undefined;
}

/** What a claim's statement reads, and the run's JSON when it claimed it (claim_dispatched_run, migration 1010). */
type ClaimRead = Pick<WorkflowRun, 'id' | 'status' | 'claim_session_id'> & { claimed: Record<string, unknown> | null };

/** A run claim in one statement: a plain read of what decides it, and the claim with its traces only when the run is claimable. */
const claimable = `'{${transitionOf('claim').from.join(',')}}'::text[]`;
const claimRunSql = `SELECT id, status, claim_session_id,
       CASE WHEN status = ANY (${claimable})
            THEN claim_dispatched_run($1, $2, $3, $4, $5, $6, ${claimable}, '${transitionOf('claim').to}', $7, $8, $9, '${SECRET_WORDS_SQL}') END AS claimed
  FROM workflow_runs WHERE id = $1`;

/**
 * POST /api/workflow-runs/:id/claim. Exactly one of concurrent claimers moves the run from
 * dispatched to claimed; the others get 409. The claim ties the run to the session key
 * (claim_session_id, and gateway_session_id until a child registers). A dispatched run is claimed
 * in one round trip (issue 13): one statement reads the run and, when it is claimable, claims it
 * and writes its traces (claim_dispatched_run, migration 1010). A run held by another session is
 * 409 from the same statement's answer; a retry of the same session is answered with the run. A
 * row that moved under the statement, secret words in its payload, summary or metadata, or an
 * event bus that is not the outbox, is decided under the row lock.
 */
export async function claimRun(deps: Deps, rawId: unknown, body: unknown): Promise<ClaimResult> {
  const input = parseInput(claimRunSchema, body ?? {}, 'claim');
  const id = parseId(rawId);
  const db = requireDb(deps.storage);
  const claim = transitionOf('claim');
  // runEvent's channel, name and shape; the statement fills in what only the row knows (workflowType, taskId)
  const event = deps.events.inline?.(runEvent('claimed', { id, status: claim.to, workflow_type: '', task_id: null }));
  if (event) {
    const actor = input.actor ?? input.agent_id;
    const { rows } = await db.query<ClaimRead>(claimRunSql, [
      id,
      input.session_id,
      input.agent_id,
      actor,
      deps.clock.now().toISOString(),
      deps.ids.uuid(),
      event.channel,
      event.name,
      event.payload,
    ]);
    const read = rows[0];
    if (read?.claimed) {
      event.committed(db);
      return { claimed: true, already: false, run: runOfStateJson(read.claimed) };
    }
    if (read && settledClaim(read, input.session_id) === 'retry') {
      const run = await findRun(db, read.id);
      if (run && settledClaim(run, input.session_id) === 'retry') return { claimed: true, already: true, run };
    }
  }
  return withRun(deps, id, (tx, run) => claimLockedRun(deps, tx, run, input));
}

/** The claim decided under the run's row lock. */
async function claimLockedRun(deps: Deps, tx: Db, run: WorkflowRun, input: z.infer<typeof claimRunSchema>): Promise<ClaimResult> {
  if (settledClaim(run, input.session_id) === 'retry') return { claimed: true, already: true, run };
  assertTransition(run, 'claim');
  const now = deps.clock.now();
  const after = await changeRun(deps, tx, run, {
    actor: input.actor ?? input.agent_id,
    action: 'claimed',
    set: {
      status: transitionOf('claim').to,
      claim_session_id: input.session_id,
      gateway_session_id: input.session_id,
      gateway_session_active: true,
      owner_agent_id: run.owner_agent_id ?? input.agent_id,
      claimed_at: now,
      heartbeat_at: now,
    },
  });
  return { claimed: true, already: false, run: after };
}

/** What a heartbeat or complete of a run that a budget's hard stop cancelled answers (issue 16). */
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

async function budgetStop(deps: Pick<Deps, 'events'>, tx: Db, run: WorkflowRun, now: Date, budgets?: Array<Record<string, unknown>>): Promise<BudgetStop> {
  return { stop: true, reason: 'budget_hard_stop', budgets: budgets ?? (await hardStopOfRun(tx, deps.events, run.id, now))?.budgets ?? [], run_id: run.id, status: run.status };
}

/**
 * A heartbeat or complete of a run a budget stopped: the run stays cancelled, the usage the report
 * moves forward is stored (it is still spend), and the answer is the stop.
 */
async function stoppedRunReport(deps: Deps, tx: Db, run: WorkflowRun, usage: UsageReport | undefined, actor: string): Promise<BudgetStop> {
  const after = usage ? await changeRun(deps, tx, run, { actor, action: 'usage_reported', set: { ...(await usageColumns(deps, tx, run, usage)) } }) : run;
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
 * usage (issue 16) the run's spend moves at once, and a hard_stop budget of its chain at or over
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
      throw new ConflictError(`workflow run ${run.id} is ${run.status}: heartbeats are for claimed or running runs`, { status: run.status });
    }
    if (!usage) {
      await tx.query('UPDATE workflow_runs SET heartbeat_at = $2, gateway_session_active = true, updated_at = $2 WHERE id = $1', [run.id, now]);
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
    throw new ValidationError(`session_id: required to start a ${before.status} run; without it only a queued run is started (dispatched now)`, [
      { path: 'session_id', message: 'required unless the run is queued' },
    ]);
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
      set: { status: transitionOf('fail').to, last_error: input.error, error_class: input.error_class, finished_at: now, gateway_session_active: false },
    });
  });
}

async function requeueOnQuota(deps: Deps, tx: Db, run: WorkflowRun, input: z.infer<typeof failRunSchema>): Promise<WorkflowRun> {
  assertTransition(run, 'requeue_on_quota', 'fail');
  const now = deps.clock.now();
  const agent = run.target_agent_id ?? run.owner_agent_id;
  if (agent) {
    const seconds = input.retry_after_seconds ?? DEFAULT_QUOTA_PAUSE_SECONDS;
    await pauseAgentDispatch(deps, tx, agent, { until: new Date(now.getTime() + seconds * 1000), reason: `${input.error_class}: ${input.error}`, runId: run.id });
  }
  // the step in progress starts over when the run is claimed again
  await tx.query(`UPDATE workflow_steps SET status = 'pending', started_at = NULL WHERE run_id = $1 AND step_order = $2 AND status = 'in_progress'`, [
    run.id,
    run.current_step,
  ]);
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
      throw new ConflictError(`workflow run ${run.id} is ${run.status}: a session key can only be stored while a session holds the run`, { status: run.status });
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
      throw new ConflictError(`workflow run ${run.id} is ${run.status}: steps are reported while it is claimed or running`, { status: run.status });
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
      [run.id, order, input.status ?? null, input.output !== undefined, JSON.stringify(input.output ?? null), input.error_message !== undefined, input.error_message ?? null, now, finishedStepStatuses],
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

/** POST /api/workflow-runs/:id/cancel (governance: cancel_run). */
export async function cancelRun(deps: Deps, rawId: unknown, body: unknown): Promise<WorkflowRun> {
  const input = parseInput(cancelRunSchema, body ?? {}, 'cancel');
  return withRun(deps, rawId, async (tx, run) => {
    await requireGovernance(tx, 'cancel_run', input.actor);
    assertTransition(run, 'cancel');
    return changeRun(deps, tx, run, {
      actor: input.actor,
      action: 'status_changed',
      set: {
        status: transitionOf('cancel').to,
        finished_at: deps.clock.now(),
        gateway_session_active: false,
        last_error: input.reason ? `cancelled by ${input.actor}: ${input.reason}` : `cancelled by ${input.actor}`,
      },
    });
  });
}

/**
 * POST /api/workflow-runs/:id/override-failure (governance: override_failure). next_status
 * queued is the redispatch operation: the error is cleared, attempts restart, and the run
 * re-enters the queue without its old sessions. next_status completed accepts a failed run as done.
 */
export async function overrideFailure(deps: Deps, rawId: unknown, body: unknown): Promise<WorkflowRun> {
  const input = parseInput(overrideFailureSchema, body ?? {}, 'override-failure');
  return withRun(deps, rawId, async (tx, run) => {
    await requireGovernance(tx, 'override_failure', input.actor);
    if (input.next_status === 'queued') {
      assertTransition(run, 'override_to_queued', 'redispatch');
      return changeRun(deps, tx, run, {
        actor: input.actor,
        action: 'status_changed',
        returnsToQueue: true,
        setSql: { retry_count: 'retry_count + 1' },
        set: {
          status: 'queued',
          last_error: null,
          dispatch_attempts: 0,
          dispatched_at: null,
          claimed_at: null,
          heartbeat_at: null,
          started_at: null,
          finished_at: null,
          output_summary: null,
          metadata: { ...run.metadata, last_override: { by: input.actor, reason: input.reason ?? null, from: run.status, error: run.last_error } },
        },
      });
    }
    assertTransition(run, 'override_to_completed', 'mark as completed');
    return changeRun(deps, tx, run, {
      actor: input.actor,
      action: 'status_changed',
      set: {
        status: 'completed',
        finished_at: run.finished_at ?? deps.clock.now(),
        metadata: { ...run.metadata, last_override: { by: input.actor, reason: input.reason ?? null, from: run.status, error: run.last_error } },
      },
    });
  });
}

/** POST /api/workflow-runs/:id/pause (governance: pause_run). The status it left is kept in metadata.paused_from. */
export async function pauseRun(deps: Deps, rawId: unknown, body: unknown): Promise<WorkflowRun> {
  const input = parseInput(pauseRunSchema, body ?? {}, 'pause');
  return withRun(deps, rawId, async (tx, run) => {
    await requireGovernance(tx, 'pause_run', input.actor);
    assertTransition(run, 'pause');
    return changeRun(deps, tx, run, {
      actor: input.actor,
      action: 'status_changed',
      set: { status: 'paused', metadata: { ...run.metadata, paused_from: run.status, pause_reason: input.reason ?? null } },
    });
  });
}

/**
 * POST /api/workflow-runs/:id/resume (governance: resume_run). A run paused while a session held
 * it returns to that status with a fresh heartbeat window; one paused before any claim goes back to the queue.
 */
export async function resumeRun(deps: Deps, rawId: unknown, body: unknown): Promise<WorkflowRun> {
  const input = parseInput(resumeRunSchema, body ?? {}, 'resume');
  return withRun(deps, rawId, async (tx, run) => {
    await requireGovernance(tx, 'resume_run', input.actor);
    assertTransition(run, 'resume');
    const pausedFrom = typeof run.metadata.paused_from === 'string' ? run.metadata.paused_from : undefined;
    const target = resumeTarget(pausedFrom);
    const { paused_from: _from, pause_reason: _reason, ...metadata } = run.metadata;
    return changeRun(deps, tx, run, {
      actor: input.actor,
      action: 'status_changed',
      returnsToQueue: target.returnsToQueue,
      set: target.returnsToQueue
        ? { status: target.status, metadata, dispatched_at: null, claimed_at: null }
        : { status: target.status, metadata, heartbeat_at: deps.clock.now() },
    });
  });
}

/**
 * POST /api/workflow-runs/:id/reassign (governance: reassign_owner). The new agent becomes owner
 * and target; a run that was dispatched or claimed but not started goes back to the queue so the
 * next tick dispatches it to the new agent.
 */
export async function reassignRun(deps: Deps, rawId: unknown, body: unknown): Promise<WorkflowRun> {
  const input = parseInput(reassignRunSchema, body ?? {}, 'reassign');
  return withRun(deps, rawId, async (tx, run) => {
    await requireGovernance(tx, 'reassign_owner', input.actor);
    assertTransition(run, 'reassign');
    const requeue = run.status === 'dispatched' || run.status === 'claimed';
    return changeRun(deps, tx, run, {
      actor: input.actor,
      action: 'reassigned',
      returnsToQueue: requeue,
      set: {
        owner_agent_id: input.agent_id,
        target_agent_id: input.agent_id,
        ...(requeue ? { status: 'queued', dispatched_at: null, claimed_at: null, heartbeat_at: null, dispatch_attempts: 0 } : {}),
        metadata: { ...run.metadata, reassigned: { from: run.owner_agent_id ?? run.target_agent_id, to: input.agent_id, by: input.actor, reason: input.reason ?? null } },
      },
    });
  });
}

/** POST /api/workflow-runs/:id/escalate (governance: escalate_run): records who it is escalated to; the status stays. */
export async function escalateRun(deps: Deps, rawId: unknown, body: unknown): Promise<WorkflowRun> {
  const input = parseInput(escalateRunSchema, body ?? {}, 'escalate');
  return withRun(deps, rawId, async (tx, run) => {
    await requireGovernance(tx, 'escalate_run', input.actor);
    assertTransition(run, 'escalate');
    const history = Array.isArray(run.metadata.escalations) ? run.metadata.escalations : [];
    const escalation = { to: input.escalated_to, by: input.actor, reason: input.reason ?? null, at: deps.clock.now().toISOString() };
    return changeRun(deps, tx, run, {
      actor: input.actor,
      action: 'escalated',
      set: { metadata: { ...run.metadata, escalated_to: input.escalated_to, escalations: [...history, escalation] } },
    });
  });
}
