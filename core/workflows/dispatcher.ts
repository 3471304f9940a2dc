import { foldAuditSearch } from '../audit/list-audit';
import { costRunsFromRuntime, type RuntimeUsagePass } from '../costs/runtime-usage';
import { foldUsageDeltas } from '../costs/usage-rollup';
import type { BudgetEnforcementCounts, BudgetVerdict, CappedCounts, Db, Deps, DispatchCandidate, TickBudgetCheck, TickSummary } from '../ports';
import { requireDb } from '../storage';
import { SYSTEM_ACTOR } from './governance';
import { recoveryRules } from './recovery-rules';
import { updateRunBatch, type ChangedRun } from './run-audit';
import { stuckConditionSql } from './run-queries';
import { terminalRunStatuses, transitionOf, type RunTrigger } from './run-status';
import { leaveSessionsSql, releaseTasksOfEndedRuns } from './run-store';
import type { WorkflowRun } from './run';
import { wakeAgents, type WakeLane, type WakeOutcome } from './wake';
import { releaseExpiredLeases } from '../agents/leases';
import { AdmissionNeedsExclusive, dispatchIsCapped, openDispatchAdmission, type AdmissionMode } from './caps';

/**
 * The dispatcher tick of spec 03, one function for every caller (the runner's timer, the scheduled
 * Lambda, POST /api/workflow-runs/dispatcher/tick, `node dist/dispatcher.js --once`), in phases
 * that each answer their part of the summary (a new phase is one more call in `tick`), after the
 * usage deltas writes left are folded (core/costs/usage-rollup.ts):
 * 0. releaseExpiredLeases (core/agents/leases.ts): task claims whose lease lapsed are released;
 * 1. recoverStaleRuns: unclaimed dispatches are retried (then failed), silent claims released,
 *    runs past their route's timeout timed out;
 * 2. dispatchQueuedRuns: queued runs by routing priority, asking the budget gate about each and
 *    admitting them under the concurrency caps and quota pauses (core/workflows/caps.ts);
 * 3. wakeTargets: each target agent, at its main session, through the runtime; a failed wake never
 *    undoes a dispatch; with a wake lane (the runner's timer) the tick does not wait for them;
 * 4. storeTickSummary (read by /api/workflow-runs/dispatcher/stats).
 * Every batch picks its rows FOR UPDATE SKIP LOCKED, so two ticks running at once never handle the same run.
 */

/** What differs between one tick and the next. */
export interface TickInputs {
  /** Who ticks: recorded as the actor of every change (default system). */
  actor?: string;
  /** Where the tick came from (timer, lambda, api, cli), kept in the summary. */
  source?: string;
  /** Rows per transaction (default 500). */
  batchSize?: number;
  /**
   * Where the wakes go without the tick waiting for them (the runner's timer); without one the
   * tick sends them itself and counts them in its summary (the API, the Lambda, the CLI).
   */
  wakeLane?: WakeLane;
}


const BATCH = 500;
/**
 * Dispatch batches in flight at once when nothing couples them (they then touch disjoint runs and
 * insert, nothing else). Measured with 10,000 queued runs (bench/dispatcher-tick.ts, 2 cores):
 * one at a time ~1.3 s, two ~0.92 s, three no better. Recovery batches go two at a time too,
 * for the rules that end no run.
 */
const DISPATCH_LANES = 2;
/** Bounds every loop of a tick: at most this many batches per phase. */
const MAX_BATCHES = 1000;

/** What every phase of one tick shares. */
export interface TickContext {
  db: Db;
  actor: string;
  batchSize: number;
}

export async function tick(deps: Deps, inputs: TickInputs = {}): Promise<TickSummary> {
  const started = deps.clock.now();
  const ctx: TickContext = { db: requireDb(deps.storage), actor: inputs.actor ?? SYSTEM_ACTOR, batchSize: inputs.batchSize ?? BATCH };
  // the usage rollup's committed deltas folded (issue 14): budget reads, this tick's included, stay small
  await foldUsageDeltas(ctx.db);
  const leasesExpired = await releaseExpiredLeases(deps, ctx.db, ctx.batchSize, MAX_BATCHES);
  const recovery = await recoverStaleRuns(deps, ctx);
  const dispatch = await dispatchQueuedRuns(deps, ctx);
  const wake = await wakeTargets(deps, [...recovery.toWake, ...dispatch.toWake], inputs.wakeLane);
  const finished = deps.clock.now();
  const summary: TickSummary = {
    source: inputs.source ?? 'api',
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    durationMs: Math.max(0, finished.getTime() - started.getTime()),
    recovered: recovery.recovered,
    dispatched: dispatch.dispatched,
    unrouted: dispatch.unrouted,
    ...wake,
    budgetEnforcement: dispatch.budgetEnforcement,
    leasesExpired,
    capped: dispatch.capped,
    heldByPause: dispatch.heldByPause,
  };
  await storeTickSummary(ctx.db, summary, started, finished);
  deps.dispatcher.onSummary?.(summary);
  return summary;
}

/**
 * What every caller of the dispatcher runs (the runner's timer, the scheduled Lambda, the API, the
 * CLI): a tick, then, with its wakes out, the audit rows written since the last pass made
 * searchable through the trigram index (migration 1020), then the runtime pass that costs finished
 * runs from their sessions (core/costs/runtime-usage.ts). A large tick's rows cost the fold about
 * two thirds of the tick's time again; no dispatch waits for it, and GET /api/audit?q= finds rows before it.
 */
export async function dispatcherPass(deps: Deps, inputs: TickInputs = {}): Promise<TickSummary & { runtimeUsage: RuntimeUsagePass | { error: string } }> {
  const summary = await tick(deps, inputs);
  // a fold that fails leaves its rows queued for the next pass (search finds them meanwhile, and
  // fleet_audit_search_pending shows the queue): it must not turn the tick that happened into an error
  await foldAuditSearch(requireDb(deps.storage)).catch(() => 0);
  // finished runs whose agents reported no usage, costed from their sessions (docs/costs.md); after
  // the dispatch, so no queued run waits on a transcript read, and never an error of the tick's
  const runtimeUsage = await costRunsFromRuntime(deps).catch((err: unknown) => ({ error: err instanceof Error ? err.message : String(err) }));
  return { ...summary, runtimeUsage };
}

/** One recovery rule of spec 03 as data: which runs (SQL over r and its route w), what they become, how it is audited. */
interface RecoveryRule {
  where: string;
  /** The status move of spec 03's table it makes, if any (the `status` assignment). */
  transition?: RunTrigger;
  set: Record<string, string>;
  action: string;
  returnsToQueue?: boolean;
}

/** The rule moves its runs to a terminal status: their tasks' pointers and claims are then released. */
const endsRuns = (rule: RecoveryRule) => rule.transition !== undefined && terminalRunStatuses.includes(transitionOf(rule.transition).to);

function recoveryAssignments(rule: RecoveryRule): Record<string, string> {
  return {
    ...(rule.returnsToQueue ? leaveSessionsSql : {}),
    ...(rule.transition ? { status: `'${transitionOf(rule.transition).to}'` } : {}),
    ...rule.set,
  };
}

const recoveryRuleSql: Record<keyof TickSummary['recovered'], RecoveryRule> = {
  redispatched: {
    where: `${stuckConditionSql.unclaimed} AND r.dispatch_attempts < ${recoveryRules.maxDispatchAttempts}`,
    set: { dispatched_at: '$1', dispatch_attempts: 'r.dispatch_attempts + 1' },
    action: 'redispatched',
  },
  failed: {
    where: `${stuckConditionSql.unclaimed} AND r.dispatch_attempts >= ${recoveryRules.maxDispatchAttempts}`,
    transition: 'fail_unclaimed',
    set: {
      finished_at: '$1',
      last_error: `'not claimed within ${recoveryRules.unclaimedAfterMs / 60_000} minutes after ' || r.dispatch_attempts || ' dispatch attempts'`,
    },
    action: 'status_changed',
  },
  released: {
    where: stuckConditionSql.silent_claim,
    transition: 'release_silent_claim',
    set: {
      dispatched_at: '$1',
      claimed_at: 'NULL',
      heartbeat_at: 'NULL',
      retry_count: 'r.retry_count + 1',
      last_error: `'released: no heartbeat within ${recoveryRules.silentClaimAfterMs / 60_000} minutes of the claim by ' || coalesce(r.claim_session_id, 'an unknown session')`,
    },
    action: 'released',
    returnsToQueue: true,
  },
  timedOut: {
    where: stuckConditionSql.timed_out_running,
    transition: 'time_out',
    set: {
      finished_at: '$1',
      gateway_session_active: 'false',
      last_error: `'running longer than the routing timeout of ' || coalesce((SELECT w2.timeout_minutes FROM workflow_agent_routing w2 WHERE w2.workflow_type = r.workflow_type), ${recoveryRules.defaultTimeoutMinutes}) || ' minutes'`,
    },
    action: 'status_changed',
  },
};

/** Phase 1: every recovery rule in turn, batch by batch; runs that end up dispatched are to be woken. */
export async function recoverStaleRuns(deps: Deps, ctx: TickContext): Promise<{ recovered: TickSummary['recovered']; toWake: ChangedRun[] }> {
  const recovered = { redispatched: 0, failed: 0, released: 0, timedOut: 0 };
  const toWake: ChangedRun[] = [];
  for (const name of Object.keys(recoveryRuleSql) as Array<keyof typeof recoveryRuleSql>) {
    const rule = recoveryRuleSql[name];
    // batches of a rule that ends no run touch only their own runs (SKIP LOCKED keeps them apart):
    // two at a time; one that ends runs also locks and releases their tasks (in id order, so never
    // in a cycle), where two batches would mostly wait for each other: one at a time
    let batches = 0;
    let drained = false;
    const batch = async () => {
      batches++;
      const changed = await recoverBatch(deps, ctx, rule);
      recovered[name] += changed.length;
      toWake.push(...changed.filter((run) => run.status === 'dispatched'));
      if (changed.length < ctx.batchSize) drained = true;
    };
    // the first batch alone: most ticks find little or nothing to recover
    await batch();
    if (!drained) await inLanes(endsRuns(rule) ? 1 : DISPATCH_LANES, () => !drained && batches < MAX_BATCHES, batch);
  }
  return { recovered, toWake };
}

async function recoverBatch(deps: Deps, ctx: TickContext, rule: RecoveryRule): Promise<ChangedRun[]> {
  return ctx.db.transaction(async (tx) => {
    const at = deps.clock.now();
    const { rows: picked } = await tx.query<{ id: string }>(
      `SELECT r.id FROM workflow_runs r LEFT JOIN workflow_agent_routing w ON w.workflow_type = r.workflow_type
        WHERE ${rule.where} ORDER BY r.created_at, r.id LIMIT ${ctx.batchSize} FOR UPDATE OF r SKIP LOCKED`,
      [at],
    );
    const after = await updateRunBatch(deps, tx, at, {
      assignments: recoveryAssignments(rule),
      ids: picked.map((r) => r.id),
      actor: ctx.actor,
      action: rule.action,
    });
    await releaseTasksOfEndedRuns(deps, tx, after);
    return after;
  });
}

type Candidate = Pick<WorkflowRun, 'id' | 'workflow_type' | 'owner_agent_id' | 'task_id'> & {
  route_agent: string;
  route_max_concurrent: number | null;
  route_expected_cost_usd: number | null;
  route_expected_tokens: number | null;
  project_id: string | null;
  department_id: string | null;
};
type DispatchPart = Pick<TickSummary, 'dispatched' | 'unrouted' | 'budgetEnforcement' | 'capped' | 'heldByPause'> & { toWake: ChangedRun[] };

function emptyDispatchPart(): DispatchPart {
  return {
    dispatched: 0,
    unrouted: 0,
    budgetEnforcement: { held: 0, stopped: 0, warned: 0, cancelledInFlight: 0, gateErrors: 0 },
    capped: { workflowType: 0, agent: 0, fleet: 0 },
    heldByPause: 0,
    toWake: [],
  };
}

/** Adds a committed batch's counts to the tick's (its runs to wake are gathered by the caller, in queue order). */
function addBatchCounts(into: DispatchPart, batch: DispatchPart): void {
  into.dispatched += batch.dispatched;
  into.heldByPause += batch.heldByPause;
  for (const key of Object.keys(batch.capped) as Array<keyof CappedCounts>) into.capped[key] += batch.capped[key];
  for (const key of Object.keys(batch.budgetEnforcement) as Array<keyof DispatchPart['budgetEnforcement']>) into.budgetEnforcement[key] += batch.budgetEnforcement[key];
}

/**
 * Phase 2: queued runs with a route, highest routing priority first, batch by batch. The budget
 * gate is opened once per tick and asked about every candidate; a gate that throws fails open
 * (spec 02) and is counted. Held runs stay queued until the next tick.
 */
export async function dispatchQueuedRuns(deps: Deps, ctx: TickContext, onlyRunId?: string): Promise<DispatchPart> {
  const part = emptyDispatchPart();
  let check: TickBudgetCheck | undefined;
  try {
    check = await deps.dispatcher.budgetGate.open(ctx.db, deps.clock.now(), deps.events);
  } catch {
    part.budgetEnforcement.gateErrors++;
  }
  // the gate fails open (spec 02): an error counts and the run passes
  const gate: BatchGate = {
    async verdictOf(candidate) {
      if (!check) return { verdict: 'pass' };
      try {
        return await check.evaluate(candidate);
      } catch {
        part.budgetEnforcement.gateErrors++;
        return { verdict: 'pass' };
      }
    },
    async beginBatch(tx) {
      try {
        await check?.beginBatch?.(tx);
      } catch {
        part.budgetEnforcement.gateErrors++;
      }
    },
    dispatched: (candidate) => check?.dispatched?.(candidate),
  };
  // The queue is read in order once per tick, without locks; each batch then locks its own slice
  // of it (what another tick took meanwhile is skipped or no longer queued) instead of sorting the
  // whole queue again. Runs queued after this read wait for the next tick.
  // one run (the operator's start) by its key, else the whole queue in order: two texts, each with its own plan
  const { rows: queue } = await ctx.db.query<{ id: string }>(
    `SELECT r.id FROM workflow_runs r JOIN workflow_agent_routing w ON w.workflow_type = r.workflow_type
      WHERE r.status = 'queued' ${onlyRunId ? 'AND r.id = $1' : ''}
      ORDER BY w.priority DESC, r.created_at, r.id LIMIT ${MAX_BATCHES * ctx.batchSize}`,
    onlyRunId ? [onlyRunId] : [],
  );
  const slices: string[][] = [];
  for (let start = 0; start < queue.length; start += ctx.batchSize) slices.push(queue.slice(start, start + ctx.batchSize).map((r) => r.id));
  // Batches go two at a time when nothing couples them: no cap or pause to count (each then holds
  // the admission lock shared) and no budget whose verdicts depend on other dispatches. A batch
  // that meets a cap or pause after all (set meanwhile) is rolled back and done again under the
  // exclusive lock, and so is every batch after it.
  const independent =
    slices.length > 1 && (check === undefined || check.batchesIndependent === true) && !(await dispatchIsCapped(ctx.db, deps.clock.now(), capSettingsOf(deps)));
  let mode: AdmissionMode = independent ? 'shared' : 'exclusive';
  // the runs to wake per slice, so that wakes go out in queue order whichever batch commits first
  const toWake: ChangedRun[][] = [];
  let nextSlice = 0;
  const dispatchSlice = async () => {
    const i = nextSlice++;
    for (;;) {
      const batchMode = mode;
      try {
        const batch = await ctx.db.transaction((tx) => dispatchBatch(deps, ctx, tx, slices[i]!, gate, batchMode));
        addBatchCounts(part, batch);
        toWake[i] = batch.toWake;
        return;
      } catch (err) {
        if (!(err instanceof AdmissionNeedsExclusive)) throw err;
        mode = 'exclusive';
      }
    }
  };
  // once exclusive, batches wait for each other anyway: one lane goes on, holding one connection
  await inLanes(mode === 'shared' ? DISPATCH_LANES : 1, (lane) => nextSlice < slices.length && (lane === 0 || mode === 'shared'), dispatchSlice);
  for (const runs of toWake) if (runs) part.toWake.push(...runs);
  if (onlyRunId) return part;
  const { rows: unrouted } = await ctx.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM workflow_runs r
      WHERE r.status = 'queued' AND NOT EXISTS (SELECT 1 FROM workflow_agent_routing w WHERE w.workflow_type = r.workflow_type)`,
  );
  part.unrouted = unrouted[0]?.n ?? 0;
  return part;
}

/** The budget gate as one dispatch batch uses it. */
interface BatchGate {
  verdictOf(candidate: DispatchCandidate): Promise<BudgetVerdict>;
  beginBatch(tx: Db): Promise<void>;
  dispatched(candidate: DispatchCandidate): void;
}

/**
 * Runs `step` in `lanes` loops at once while `more(lane)` says so. A step that fails stops every
 * lane before its next step; the first failure is thrown once all have stopped, so no batch is
 * still running when the tick reports it.
 */
async function inLanes(lanes: number, more: (lane: number) => boolean, step: () => Promise<void>): Promise<void> {
  let failure: { error: unknown } | undefined;
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      while (!failure && more(lane)) {
        try {
          await step();
        } catch (error) {
          failure ??= { error };
        }
      }
    }),
  );
  if (failure) throw failure.error;
}

function capSettingsOf(deps: Deps) {
  return { maxInFlight: deps.dispatcher.maxInFlight };
}

/** One batch in its transaction: what it counted and the runs it dispatched, once it commits. */
async function dispatchBatch(deps: Deps, ctx: TickContext, tx: Db, slice: readonly string[], gate: BatchGate, mode: AdmissionMode): Promise<DispatchPart> {
  const part = emptyDispatchPart();
  // the admission lock serialises counting batches across runners; reservations are read after it (issue 16)
  const admission = await openDispatchAdmission(tx, deps.clock.now(), capSettingsOf(deps), mode);
  await gate.beginBatch(tx);
  const { rows: candidates } = await tx.query<Candidate>(
    `SELECT r.id, r.workflow_type, r.owner_agent_id, r.task_id, w.agent_id AS route_agent, w.max_concurrent AS route_max_concurrent, t.project_id,
            w.expected_cost_usd AS route_expected_cost_usd, w.expected_tokens AS route_expected_tokens,
            coalesce(ap.department_id, tp.department_id) AS department_id
       FROM workflow_runs r
       JOIN workflow_agent_routing w ON w.workflow_type = r.workflow_type
       LEFT JOIN tasks t ON t.id = r.task_id
       LEFT JOIN agent_profiles ap ON ap.agent_id = coalesce(r.owner_agent_id, w.agent_id)
       LEFT JOIN workflow_templates tp ON tp.name = r.workflow_type
      WHERE r.id = ANY($1::uuid[]) AND r.status = 'queued'
      ORDER BY w.priority DESC, r.created_at, r.id
      FOR UPDATE OF r SKIP LOCKED`,
    [slice],
  );
  if (candidates.length === 0) return part;
  const toDispatch: Array<{ id: string; target: string }> = [];
  const toStop = new Map<string, string>();
  const inFlightStops = new Map<string, string>();
  for (const c of candidates) {
    const target = c.owner_agent_id ?? c.route_agent;
    const candidate: DispatchCandidate = {
      runId: c.id,
      workflowType: c.workflow_type,
      targetAgentId: target,
      ownerAgentId: c.owner_agent_id,
      taskId: c.task_id,
      projectId: c.project_id,
      departmentId: c.department_id,
      expectedCostUsd: c.route_expected_cost_usd,
      expectedTokens: c.route_expected_tokens,
    };
    const verdict = await gate.verdictOf(candidate);
    if (verdict.verdict === 'hold') {
      part.budgetEnforcement.held++;
    } else if (verdict.verdict === 'stop') {
      toStop.set(c.id, verdict.reason);
      part.budgetEnforcement.stopped++;
      for (const id of verdict.cancelRunIds ?? []) if (id !== c.id) inFlightStops.set(id, verdict.reason);
    } else {
      if (verdict.verdict === 'warn') part.budgetEnforcement.warned++;
      const refusal = admission.admit({ workflowType: c.workflow_type, targetAgentId: target, routeMaxConcurrent: c.route_max_concurrent });
      if (refusal) {
        if (refusal === 'agentPaused') part.heldByPause++;
        else part.capped[refusal]++;
      } else {
        toDispatch.push({ id: c.id, target });
        gate.dispatched(candidate);
      }
    }
  }
  const at = deps.clock.now();
  if (toDispatch.length) {
    const after = await updateRunBatch(deps, tx, at, {
      assignments: dispatchAssignments,
      ids: toDispatch.map((d) => d.id),
      values: [{ name: 'target', type: 'text', values: toDispatch.map((d) => d.target) }],
      actor: ctx.actor,
      action: 'dispatched',
    });
    part.toWake.push(...after);
    part.dispatched += after.length;
  }
  await budgetCancel(deps, tx, [...toStop], at, ctx.actor);
  if (inFlightStops.size) {
    const { rows: inFlight } = await tx.query<{ id: string }>(
      `SELECT id FROM workflow_runs WHERE id = ANY($1::uuid[]) AND status = ANY($2::text[]) FOR UPDATE SKIP LOCKED`,
      [[...inFlightStops.keys()], transitionOf('budget_stop').from],
    );
    part.budgetEnforcement.cancelledInFlight += await budgetCancel(
      deps,
      tx,
      inFlight.map((r) => [r.id, inFlightStops.get(r.id)!] as [string, string]),
      at,
      ctx.actor,
    );
  }
  return part;
}

/**
 * Phase 3: one wake per dispatched run, through the runtime; failures are counted, never undone.
 * With a wake lane the wakes are handed to it and the tick goes on without them.
 */
export async function wakeTargets(
  deps: Deps,
  runs: readonly ChangedRun[],
  lane?: WakeLane,
): Promise<Pick<TickSummary, 'woken' | 'wakeFailed' | 'wakeErrors' | 'wakesInBackground'>> {
  if (lane && runs.length) {
    const toWake = [...runs];
    lane.send(() => wakeAgents(deps, toWake, deps.dispatcher.claimUrlBase));
    return { woken: 0, wakeFailed: 0, wakeErrors: [], wakesInBackground: toWake.length };
  }
  const outcome: WakeOutcome = await wakeAgents(deps, runs, deps.dispatcher.claimUrlBase);
  return { woken: outcome.woken, wakeFailed: outcome.failed, wakeErrors: outcome.errors, wakesInBackground: 0 };
}

/** What dispatching one run now did: whether it left the queue, what held it, and the wake of its agent. */
export interface RunDispatch {
  dispatched: boolean;
  heldByBudget: boolean;
  stoppedByBudget: boolean;
  /** A concurrency cap that was full, or the target agent's quota pause. */
  heldByCap: boolean;
  woken: number;
  wakeErrors: string[];
}

/**
 * One queued run dispatched now, as a tick would dispatch it (route, budget gate, caps and pauses,
 * mark dispatched, wake the agent), without the tick's other phases or summary: the operator's
 * start of a queued run.
 */
export async function dispatchRunNow(deps: Deps, runId: string, actor: string = SYSTEM_ACTOR): Promise<RunDispatch> {
  const ctx: TickContext = { db: requireDb(deps.storage), actor, batchSize: 1 };
  const part = await dispatchQueuedRuns(deps, ctx, runId);
  const wake = await wakeTargets(deps, part.toWake);
  return {
    dispatched: part.dispatched > 0,
    heldByBudget: part.budgetEnforcement.held > 0,
    stoppedByBudget: part.budgetEnforcement.stopped > 0,
    heldByCap: part.heldByPause + part.capped.agent + part.capped.fleet + part.capped.workflowType > 0,
    woken: wake.woken,
    wakeErrors: wake.wakeErrors,
  };
}


/** How a run cancelled by a budget's hard stop says so in last_error; its heartbeats and completes answer `stop` after it. */
export const BUDGET_STOP_ERROR = 'cancelled by budget hard stop: ';

/** A dispatch batch's assignments over r and x(id, target), $1 the time. */
const dispatchAssignments: Record<string, string> = {
  status: `'${transitionOf('dispatch').to}'`,
  target_agent_id: 'x.target',
  dispatched_at: '$1',
  dispatch_attempts: 'r.dispatch_attempts + 1',
};

/** A budget stop's assignments over r and x(id, reason), $1 the time. */
const budgetStopAssignments: Record<string, string> = {
  status: `'${transitionOf('budget_stop').to}'`,
  finished_at: '$1',
  gateway_session_active: 'false',
  last_error: `'${BUDGET_STOP_ERROR}' || x.reason`,
};

/** Budget hard stop: the runs (locked by the caller) are cancelled with the budget's reason (the tick's, and a live run's heartbeat). */
export async function budgetCancel(deps: Deps, tx: Db, stops: Array<[string, string]>, at: Date, actor: string): Promise<number> {
  const after = await updateRunBatch(deps, tx, at, {
    assignments: budgetStopAssignments,
    ids: stops.map((s) => s[0]),
    values: [{ name: 'reason', type: 'text', values: stops.map((s) => s[1]) }],
    actor,
    action: 'budget_stopped',
  });
  await releaseTasksOfEndedRuns(deps, tx, after);
  return after.length;
}

const KEPT_TICKS = 100;

/** Phase 4: the summary, kept for the last 100 ticks. */
export async function storeTickSummary(db: Db, summary: TickSummary, started: Date, finished: Date): Promise<void> {
  await db.query(
    `WITH inserted AS (
       INSERT INTO dispatcher_ticks (started_at, finished_at, source, summary) VALUES ($1, $2, $3, $4) RETURNING id)
     DELETE FROM dispatcher_ticks WHERE id <= (SELECT id FROM inserted) - ${KEPT_TICKS}`,
    [started, finished, summary.source, JSON.stringify(summary)],
  );
}
