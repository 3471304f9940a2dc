/** Spec 03 "Limits": the time rules of stale-run recovery, in one place. */
export const recoveryRules = {
  /** A dispatched run not claimed within this is dispatched again. */
  unclaimedAfterMs: 5 * 60_000,
  /** ... up to this many dispatch attempts in all; then it fails. */
  maxDispatchAttempts: 3,
  /** A claimed run without a heartbeat for this long is released back to dispatched. */
  silentClaimAfterMs: 10 * 60_000,
  /** The run timeout when the run's workflow type has no routing entry any more (the column's default). */
  defaultTimeoutMinutes: 60,
} as const;

/** The stuck reasons /api/workflow-runs/stuck reports, one per recovery rule. */
export type StuckReason = 'unclaimed' | 'silent_claim' | 'timed_out_running';
