import { releaseExpiredLeases } from '../agents/leases';
import { foldAuditSearch } from '../audit/list-audit';
import { costRunsFromRuntime, type RuntimeUsagePass } from '../costs/runtime-usage';
import { foldUsageDeltas } from '../costs/usage-rollup';
import type { Db, Deps, TickSummary } from '../ports';
import { requireDb } from '../storage';
import { MAX_BATCHES, type TickContext } from './dispatcher-batches';
import { dispatchQueuedRuns } from './dispatcher-queue';
import { recoverStaleRuns } from './dispatcher-recovery';
import { SYSTEM_ACTOR } from './governance';
import type { ChangedRun } from './run-audit';
import { wakeAgents, type WakeLane, type WakeOutcome } from './wake';

/**
 * The dispatcher tick of spec 03, one function for every caller (the runner's timer, the scheduled
 * Lambda, POST /api/workflow-runs/dispatcher/tick, `node dist/dispatcher.js --once`), in phases
 * that each answer their part of the summary (a new phase is one more call in `tick`), after the
 * usage deltas writes left are folded (core/costs/usage-rollup.ts):
 * 0. releaseExpiredLeases (core/agents/leases.ts): task claims whose lease lapsed are released;
 * 1. recoverStaleRuns (dispatcher-recovery.ts): unclaimed dispatches are retried (then failed),
 *    silent claims released, runs past their route's timeout timed out;
 * 2. dispatchQueuedRuns (dispatcher-queue.ts): queued runs by routing priority, asking the budget
 *    gate about each and admitting them under the concurrency caps and quota pauses (caps.ts);
 * 3. wakeTargets: each target agent, at its main session, through the runtime; a failed wake never
 *    undoes a dispatch; with a wake lane (the runner's timer) the tick does not wait for them;
 * 4. storeTickSummary (read by /api/workflow-runs/dispatcher/stats).
 * Every batch picks its rows FOR UPDATE SKIP LOCKED, so two ticks running at once never handle the same run
 * (the batches and their lanes: dispatcher-batches.ts).
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

/** Rows per transaction unless the caller says otherwise. */
const BATCH = 500;

export async function tick(deps: Deps, inputs: TickInputs = {}): Promise<TickSummary> {
  const started = deps.clock.now();
  const ctx: TickContext = { db: requireDb(deps.storage), actor: inputs.actor ?? SYSTEM_ACTOR, batchSize: inputs.batchSize ?? BATCH };
  // the usage rollup's committed deltas folded: budget reads, this tick's included, stay small
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
export async function dispatcherPass(
  deps: Deps,
  inputs: TickInputs = {},
): Promise<TickSummary & { runtimeUsage: RuntimeUsagePass | { error: string } }> {
  const summary = await tick(deps, inputs);
  // a fold that fails leaves its rows queued for the next pass (search finds them meanwhile, and
  // fleet_audit_search_pending shows the queue): it must not turn the tick that happened into an error
  await foldAuditSearch(requireDb(deps.storage)).catch(() => 0);
  // finished runs whose agents reported no usage, costed from their sessions (docs/costs.md); after
  // the dispatch, so no queued run waits on a transcript read, and never an error of the tick's
  const runtimeUsage = await costRunsFromRuntime(deps).catch((err: unknown) => ({
    error: err instanceof Error ? err.message : String(err),
  }));
  return { ...summary, runtimeUsage };
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
