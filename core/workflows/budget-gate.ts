import type { Db, EventBus } from '../ports';

/**
 * The dispatcher's budget hook (spec 02 "Dispatcher reaction to budget state"). The dispatcher
 * asks the gate about every queued run it is about to dispatch; the gate is injected through
 * Deps.dispatcher, so the budgets module plugs its enforcement in without the dispatcher knowing
 * how budgets work, and tests can pass a scripted gate.
 */

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
  /** What its route expects one run to spend (issue 16), reserved while it is live; null: nothing. */
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
   * dispatching at once see each other's dispatches (issue 16).
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

/** The gate used when nothing else is plugged in: every run passes. */
export const passingBudgetGate: BudgetGate = {
  async open() {
    return { evaluate: async () => ({ verdict: 'pass' }), batchesIndependent: true };
  },
};

/** The per-tick counts of spec 02, exposed as last_tick_summary.budgetEnforcement. */
export interface BudgetEnforcementCounts {
  held: number;
  stopped: number;
  warned: number;
}
