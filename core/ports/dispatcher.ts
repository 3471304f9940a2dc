import type { Db } from './db';
import type { EventBus } from './events';

/**
 * The dispatcher's settings and hooks (Deps.dispatcher): the budget gate the budgets module plugs in
 * (spec 02 "Dispatcher reaction to budget state") without the dispatcher knowing how budgets work,
 * and the summary each tick reports (core/workflows/dispatcher.ts runs the tick).
 */

/** The process's dispatcher configuration (Deps.dispatcher), the same for every tick. */
export interface DispatcherSettings {
  /** Asked about every queued run before it is dispatched (the budgets module's enforcement). */
  budgetGate: BudgetGate;
  /** Base URL of this task server, for the claim URL in wake events. */
  claimUrlBase?: string;
  /** DISPATCH_MAX_IN_FLIGHT: live runs the fleet may hold at once (default: no cap). */
  maxInFlight?: number;
  /** Told each finished tick's summary (the metrics count them). */
  onSummary?: (summary: TickSummary) => void;
}

/** What the dispatcher knows about a queued run when it asks the gate; enough to find every budget scope. */
export interface DispatchCandidate {
  runId: string;
  workflowType: string;
  /** The agent the run is about to be dispatched to (routing or explicit owner). */
  targetAgentId: string;
  ownerAgentId: string | null;
  taskId: string | null;
  /** The project of the run's task, when it has one. */
  projectId: string | null;
  /** The department of the target agent's stored profile, else of the run's template. */
  departmentId: string | null;
  /** What its route expects one run to spend, reserved while it is live; null: nothing. */
  expectedCostUsd: number | null;
  expectedTokens: number | null;
}

/**
 * - pass: dispatch;
 * - warn: dispatch, counted as warned (a warn budget at or over its cap);
 * - hold: stays queued, no attempt counted (pause_new_runs breached);
 * - stop: the candidate is cancelled, and so is every in-flight run in `cancelRunIds` (hard_stop breached).
 */
export type BudgetVerdict =
  | { verdict: 'pass' }
  | { verdict: 'warn'; reason: string }
  | { verdict: 'hold'; reason: string }
  | { verdict: 'stop'; reason: string; cancelRunIds?: readonly string[] };

/** One tick's view of the budgets: opened once per tick so a gate can load budgets and spend once. */
export interface TickBudgetCheck {
  evaluate(candidate: DispatchCandidate): Promise<BudgetVerdict>;
  /**
   * Called in each dispatch batch's transaction after the dispatch admission lock is taken, before
   * the batch's verdicts: a gate that reserves re-reads live runs' reservations here, so runners
   * dispatching at once see each other's dispatches.
   */
  beginBatch?(tx: Db): Promise<void>;
  /** The candidate passed and is dispatched: what it expects to spend counts for the rest of the batch. */
  dispatched?(candidate: DispatchCandidate): void;
  /**
   * True when no verdict depends on what other batches dispatch (nothing reserved, nothing to
   * stop): the tick may then run batches at once. Absent means false: batches one after another.
   */
  batchesIndependent?: boolean;
}

export interface BudgetGate {
  /**
   * Called at the start of the dispatch phase of a tick, outside any transaction.
   * A gate that throws (here or in evaluate) fails open: the dispatcher treats it as pass.
   */
  open(db: Db, at: Date, events: EventBus): Promise<TickBudgetCheck>;
}

/** The per-tick counts of spec 02, exposed as last_tick_summary.budgetEnforcement. */
export interface BudgetEnforcementCounts {
  held: number;
  stopped: number;
  warned: number;
}

/** Queued runs left queued this tick because a concurrency cap was full, per cap. */
export interface CappedCounts {
  workflowType: number;
  agent: number;
  fleet: number;
}

export interface TickSummary {
  source: string;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  recovered: { redispatched: number; failed: number; released: number; timedOut: number };
  dispatched: number;
  /** Queued runs whose workflow type has no routing entry (left queued). */
  unrouted: number;
  woken: number;
  wakeFailed: number;
  wakeErrors: string[];
  /** Wakes handed to the wake lane, sent after the tick (their outcome is not in this summary). */
  wakesInBackground: number;
  budgetEnforcement: BudgetEnforcementCounts & { cancelledInFlight: number; gateErrors: number };
  /** Task claims whose lease lapsed, released by this tick. */
  leasesExpired: number;
  /** Queued runs left queued because a concurrency cap was full, per cap. */
  capped: CappedCounts;
  /** Queued runs left queued because their target agent's dispatch is paused (provider quota). */
  heldByPause: number;
}
