/**
 * Run statuses and the transitions table of spec 03, as data. Use cases ask `transitionFor`
 * whether a trigger may move a run from its current status; the table, not scattered ifs,
 * decides. Rows marked `spec: false` are this server's additions (docs/api/workflow-engine.md).
 */

export const knownRunStatuses = [
  'queued',
  'dispatched',
  'claimed',
  'running',
  'waiting_for_approval',
  'retrying',
  'paused',
  'completed',
  'failed',
  'cancelled',
  'timed_out',
] as const;
export type KnownRunStatus = (typeof knownRunStatuses)[number];

/**
 * The groups of run statuses, as data beside the transitions. Every list of statuses a use case or a
 * query needs is one of these (test/unit/status-groups.test.ts refuses a list written anywhere else in
 * core), and SQL takes them as a parameter (`= ANY($n::text[])`) or as a literal (`core/sql-text.ts`).
 * "Active" includes `paused`: a paused run has not ended and comes back on resume, so the org summary,
 * /api/workflow-runs/active and the one-run-per-task rule count it like any run still in play.
 */
const terminal = ['completed', 'failed', 'cancelled', 'timed_out'] as const satisfies readonly KnownRunStatus[];
/** Handed to an agent and not ended or paused: what the caps count. */
const live = ['dispatched', 'claimed', 'running', 'waiting_for_approval'] as const satisfies readonly KnownRunStatus[];
export const runStatusGroups = {
  /** A run leaves these only through an override. */
  terminal,
  /** Not ended: in play, paused included. */
  active: knownRunStatuses.filter((s) => !(terminal as readonly string[]).includes(s)),
  /** What the caps count (routing max_concurrent, an agent's max_concurrent_runs, the fleet cap). */
  live,
  /** What reserves budget and what a hard stop cancels: the live runs and the ones about to retry. */
  inFlight: [...live, 'retrying'],
  /** A session holds the run: heartbeats, step reports and completion come from it. */
  held: ['claimed', 'running', 'waiting_for_approval', 'paused'],
  /** Held and not paused: the session is working on it and may register artifacts and steps. */
  working: ['claimed', 'running', 'waiting_for_approval'],
  /** Handed out and moving, before any wait: where a dispatcher or an agent may be writing, and where a run can get stuck. */
  underway: ['dispatched', 'claimed', 'running'],
  /** Given to an agent that has not started it yet: where an unclaimed dispatch or a silent claim is found. */
  handedOut: ['dispatched', 'claimed'],
  /** Ended in failure (a cancel is not one): what stands in a task's way until it is retried. */
  failed: ['failed', 'timed_out'],
  /** Ended without success: what a retry reopens. */
  reopenable: ['failed', 'timed_out', 'cancelled'],
  /** What the dispatcher's queue figures count, each shown even at zero. */
  queue: ['queued', ...live],
} as const satisfies Record<string, readonly KnownRunStatus[]>;
export type RunStatusGroup = keyof typeof runStatusGroups;

/** Statuses a run never leaves except through override-failure. */
export const terminalRunStatuses: readonly string[] = runStatusGroups.terminal;
/** The runs of a list that ended and belong to a task: the ones whose task is to be let go. */
export function endedRunsOfTasks<Run extends { task_id: string | null; status: string }>(
  runs: readonly Run[],
): Array<Run & { task_id: string }> {
  return runs.filter(
    (r): r is Run & { task_id: string } => r.task_id !== null && r.task_id !== '' && terminalRunStatuses.includes(r.status),
  );
}
/** A run that is still in play (queued or worked on, paused included); what /api/workflow-runs/active lists. */
export const activeRunStatuses: readonly string[] = runStatusGroups.active;
/** A run that a session holds: heartbeats, step reports and completion come from its session. */
export const heldRunStatuses: readonly string[] = runStatusGroups.held;

export type RunTrigger =
  | 'create'
  | 'dispatch'
  | 'budget_hold'
  | 'budget_stop'
  | 'claim'
  | 'redispatch_unclaimed'
  | 'fail_unclaimed'
  | 'release_silent_claim'
  | 'time_out'
  | 'start'
  | 'complete'
  | 'fail'
  | 'requeue_on_quota'
  | 'request_approval'
  | 'approval_granted'
  | 'approval_rejected'
  | 'cancel'
  | 'override_to_queued'
  | 'override_to_completed'
  | 'pause'
  | 'resume'
  | 'reassign'
  | 'escalate';

export interface RunTransition {
  trigger: RunTrigger;
  from: readonly string[];
  /** `same` keeps the status; `paused_from` returns to the status the run was paused in. */
  to: string | 'same' | 'paused_from';
  /** The run leaves any session and goes back to the queue (session keys move to session_history). */
  returnsToQueue?: boolean;
  spec: boolean;
}

const cancellable = runStatusGroups.active;
const reopenable = runStatusGroups.reopenable;

export const runTransitions: readonly RunTransition[] = [
  { trigger: 'create', from: [], to: 'queued', spec: true },
  { trigger: 'dispatch', from: ['queued'], to: 'dispatched', spec: true },
  { trigger: 'budget_hold', from: ['queued'], to: 'queued', spec: true },
  {
    trigger: 'budget_stop',
    from: ['queued', 'dispatched', 'claimed', 'running', 'waiting_for_approval', 'retrying'],
    to: 'cancelled',
    spec: true,
  },
  { trigger: 'claim', from: ['dispatched'], to: 'claimed', spec: true },
  { trigger: 'redispatch_unclaimed', from: ['dispatched'], to: 'dispatched', spec: true },
  { trigger: 'fail_unclaimed', from: ['dispatched'], to: 'failed', spec: true },
  { trigger: 'release_silent_claim', from: ['claimed'], to: 'dispatched', returnsToQueue: true, spec: true },
  { trigger: 'time_out', from: ['running'], to: 'timed_out', spec: true },
  { trigger: 'complete', from: ['running', 'claimed'], to: 'completed', spec: true },
  { trigger: 'cancel', from: cancellable, to: 'cancelled', spec: true },
  { trigger: 'override_to_queued', from: reopenable, to: 'queued', returnsToQueue: true, spec: true },
  { trigger: 'override_to_completed', from: ['failed', 'timed_out'], to: 'completed', spec: false },
  { trigger: 'start', from: ['claimed'], to: 'running', spec: false },
  { trigger: 'fail', from: ['claimed', 'running', 'waiting_for_approval'], to: 'failed', spec: false },
  // a provider quota or rate limit is not the run's fault: it waits in the queue for the agent's pause to end
  { trigger: 'requeue_on_quota', from: ['claimed', 'running', 'waiting_for_approval'], to: 'queued', returnsToQueue: true, spec: false },
  { trigger: 'request_approval', from: ['claimed', 'running', 'waiting_for_approval'], to: 'waiting_for_approval', spec: false },
  { trigger: 'approval_granted', from: ['waiting_for_approval'], to: 'running', spec: false },
  { trigger: 'approval_rejected', from: ['waiting_for_approval'], to: 'failed', spec: false },
  { trigger: 'pause', from: ['queued', 'dispatched', 'claimed', 'running', 'waiting_for_approval', 'retrying'], to: 'paused', spec: false },
  { trigger: 'resume', from: ['paused'], to: 'paused_from', spec: false },
  {
    trigger: 'reassign',
    from: ['queued', 'dispatched', 'claimed', 'running', 'waiting_for_approval', 'retrying', 'paused'],
    to: 'same',
    spec: false,
  },
  { trigger: 'escalate', from: cancellable, to: 'same', spec: false },
];

const byTrigger = new Map(runTransitions.map((t) => [t.trigger, t]));

export function transitionOf(trigger: RunTrigger): RunTransition {
  return byTrigger.get(trigger)!;
}

/** The transition when `trigger` may move a run in `status`, else undefined. */
export function transitionFor(status: string, trigger: RunTrigger): RunTransition | undefined {
  const transition = byTrigger.get(trigger);
  return transition && transition.from.includes(status) ? transition : undefined;
}

/** Where a resumed run goes: a run paused before any session held it goes back to the queue. */
export function resumeTarget(pausedFrom: string | undefined): { status: string; returnsToQueue: boolean } {
  if (!pausedFrom || pausedFrom === 'queued' || pausedFrom === 'dispatched' || pausedFrom === 'retrying') {
    return { status: 'queued', returnsToQueue: true };
  }
  return { status: pausedFrom, returnsToQueue: false };
}

/** The five step statuses clients colorize; any other string is stored and shown verbatim. */
export const knownStepStatuses = ['pending', 'in_progress', 'completed', 'failed', 'skipped'] as const;
export const finishedStepStatuses: readonly string[] = ['completed', 'failed', 'skipped'];
