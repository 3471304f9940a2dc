import type { Db, Deps } from '../ports';
import { requireDb } from '../storage';
import { passingBudgetGate, type BudgetEnforcementCounts, type BudgetGate, type BudgetVerdict, type DispatchCandidate, type TickBudgetCheck } from './budget-gate';
import { SYSTEM_ACTOR } from './governance';
import { recoveryRules } from './recovery-rules';
import { recordRunBatch } from './run-audit';
import { stuckConditionSql } from './run-queries';
import { transitionOf } from './run-status';
import { leaveSessionsSql } from './run-store';
import { runColumns, type WorkflowRun } from './run';
import { wakeAgents, type WakeOutcome } from './wake';

/**
 * The dispatcher tick of spec 03, one function for every caller (the runner's timer, the scheduled
 * Lambda, POST /api/workflow-runs/dispatcher/tick, `node dist/dispatcher.js --once`):
 * 1. recover stale runs: unclaimed dispatches are retried (then failed), silent claims released,
 *    runs past their route's timeout timed out;
 * 2. dispatch queued runs by routing priority, asking the budget gate about each;
 * 3. wake each target agent through the runtime; a failed wake never undoes a dispatch;
 * 4. store the tick's summary (read by /api/workflow-runs/dispatcher/stats).
 * Every batch picks its rows FOR UPDATE SKIP LOCKED, so two ticks running at once never handle the same run.
 */

export interface TickInputs {
  budgetGate?: BudgetGate;
  /** Base URL of this task server, for the claim URL in wake events. */
  claimUrlBase?: string;
  /** Who ticks: recorded as the actor of every change (default system). */
  actor?: string;
  /** Where the tick came from (timer, lambda, api, cli), kept in the summary. */
  source?: string;
  /** Rows per transaction (default 500). */
  batchSize?: number;
  /** Told each finished tick's summary (the metrics count them). */
  onSummary?: (summary: TickSummary) => void;
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
  budgetEnforcement: BudgetEnforcementCounts & { cancelledInFlight: number; gateErrors: number };
}

const BATCH = 500;
/** Bounds every loop of a tick: at most this many batches per phase. */
const MAX_BATCHES = 1000;

type Wake = { run: WorkflowRun };

function emptySummary(source: string, started: Date): TickSummary {
  return {
    source,
    startedAt: started.toISOString(),
    finishedAt: started.toISOString(),
    durationMs: 0,
    recovered: { redispatched: 0, failed: 0, released: 0, timedOut: 0 },
    dispatched: 0,
    unrouted: 0,
    woken: 0,
    wakeFailed: 0,
    wakeErrors: [],
    budgetEnforcement: { held: 0, stopped: 0, warned: 0, cancelledInFlight: 0, gateErrors: 0 },
  };
}

export async function tick(deps: Deps, inputs: TickInputs = {}): Promise<TickSummary> {
  const db = requireDb(deps.storage);
  const started = deps.clock.now();
  const actor = inputs.actor ?? SYSTEM_ACTOR;
  const batchSize = inputs.batchSize ?? BATCH;
  const summary = emptySummary(inputs.source ?? 'api', started);
  const wakes: Wake[] = [];

  // 1. recovery
  const now = () => deps.clock.now();
  const recover = async (where: string, set: Record<string, string>, action: string, returnsToQueue = false) => {
    let total = 0;
    for (let i = 0; i < MAX_BATCHES; i++) {
      const changed = await db.transaction(async (tx) => {
        const at = now();
        const { rows: before } = await tx.query<WorkflowRun>(
          `SELECT ${qualified('r')} FROM workflow_runs r LEFT JOIN workflow_agent_routing w ON w.workflow_type = r.workflow_type
            WHERE ${where} ORDER BY r.created_at, r.id LIMIT ${batchSize} FOR UPDATE OF r SKIP LOCKED`,
          [at],
        );
        if (before.length === 0) return [];
        const assignments = { ...(returnsToQueue ? leaveSessionsSql : {}), ...set };
        const { rows: after } = await tx.query<WorkflowRun>(
          `UPDATE workflow_runs r SET ${Object.entries(assignments).map(([c, e]) => `${c} = ${e}`).join(', ')}, updated_at = $1
            WHERE r.id = ANY($2::uuid[]) RETURNING ${qualified('r')}`,
          [at, before.map((r) => r.id)],
        );
        await clearTaskPointers(tx, after);
        const byId = new Map(before.map((r) => [r.id, r]));
        await recordRunBatch(deps, tx, after.map((a) => ({ before: byId.get(a.id)!, after: a })), { actor, action });
        return after;
      });
      total += changed.length;
      if (changed[0]?.status === 'dispatched') wakes.push(...changed.map((run) => ({ run })));
      if (changed.length < batchSize) break;
    }
    return total;
  };

  summary.recovered.redispatched = await recover(
    `${stuckConditionSql.unclaimed} AND r.dispatch_attempts < ${recoveryRules.maxDispatchAttempts}`,
    { dispatched_at: '$1', dispatch_attempts: 'r.dispatch_attempts + 1' },
    'redispatched',
  );
  summary.recovered.failed = await recover(
    `${stuckConditionSql.unclaimed} AND r.dispatch_attempts >= ${recoveryRules.maxDispatchAttempts}`,
    {
      status: `'${transitionOf('fail_unclaimed').to}'`,
      finished_at: '$1',
      last_error: `'not claimed within ${recoveryRules.unclaimedAfterMs / 60_000} minutes after ' || r.dispatch_attempts || ' dispatch attempts'`,
    },
    'status_changed',
  );
  summary.recovered.released = await recover(
    stuckConditionSql.silent_claim,
    {
      status: `'${transitionOf('release_silent_claim').to}'`,
      dispatched_at: '$1',
      claimed_at: 'NULL',
      heartbeat_at: 'NULL',
      retry_count: 'r.retry_count + 1',
      last_error: `'released: no heartbeat within ${recoveryRules.silentClaimAfterMs / 60_000} minutes of the claim by ' || coalesce(r.claim_session_id, 'an unknown session')`,
    },
    'released',
    true,
  );
  summary.recovered.timedOut = await recover(
    stuckConditionSql.timed_out_running,
    {
      status: `'${transitionOf('time_out').to}'`,
      finished_at: '$1',
      gateway_session_active: 'false',
      last_error: `'running longer than the routing timeout of ' || coalesce((SELECT w2.timeout_minutes FROM workflow_agent_routing w2 WHERE w2.workflow_type = r.workflow_type), ${recoveryRules.defaultTimeoutMinutes}) || ' minutes'`,
    },
    'status_changed',
  );

  // 2. dispatch
  await dispatchQueued(deps, inputs, summary, wakes);
  const { rows: unrouted } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM workflow_runs r
      WHERE r.status = 'queued' AND NOT EXISTS (SELECT 1 FROM workflow_agent_routing w WHERE w.workflow_type = r.workflow_type)`,
  );
  summary.unrouted = unrouted[0]?.n ?? 0;

  // 3. wake
  const outcome: WakeOutcome = await wakeAgents(deps, wakes.map((w) => w.run), inputs.claimUrlBase);
  summary.woken = outcome.woken;
  summary.wakeFailed = outcome.failed;
  summary.wakeErrors = outcome.errors;

  // 4. record
  const finished = deps.clock.now();
  summary.finishedAt = finished.toISOString();
  summary.durationMs = Math.max(0, finished.getTime() - started.getTime());
  await storeTickSummary(db, summary, started, finished);
  inputs.onSummary?.(summary);
  return summary;
}

/**
 * Dispatches queued runs (all of them, or only `onlyRunId`) by routing priority, asking the budget
 * gate about each; dispatched runs join `wakes`, counts go to `summary`.
 */
async function dispatchQueued(deps: Deps, inputs: TickInputs, summary: TickSummary, wakes: Wake[], onlyRunId?: string): Promise<void> {
  const db = requireDb(deps.storage);
  const actor = inputs.actor ?? SYSTEM_ACTOR;
  const batchSize = inputs.batchSize ?? BATCH;
  const now = () => deps.clock.now();
  let check: TickBudgetCheck | undefined;
  try {
    check = await (inputs.budgetGate ?? passingBudgetGate).open(db, now());
  } catch {
    summary.budgetEnforcement.gateErrors++;
  }
  const verdictOf = async (candidate: DispatchCandidate): Promise<BudgetVerdict> => {
    if (!check) return { verdict: 'pass' };
    try {
      return await check.evaluate(candidate);
    } catch {
      summary.budgetEnforcement.gateErrors++;
      return { verdict: 'pass' }; // a failing gate fails open (spec 02)
    }
  };
  const held: string[] = [];
  for (let i = 0; i < MAX_BATCHES; i++) {
    const picked = await db.transaction(async (tx) => {
      const { rows: candidates } = await tx.query<WorkflowRun & { route_agent: string; project_id: string | null; department_id: string | null }>(
        `SELECT ${qualified('r')}, w.agent_id AS route_agent, t.project_id,
                coalesce(ap.department_id, tp.department_id) AS department_id
           FROM workflow_runs r
           JOIN workflow_agent_routing w ON w.workflow_type = r.workflow_type
           LEFT JOIN tasks t ON t.id = r.task_id
           LEFT JOIN agent_profiles ap ON ap.agent_id = coalesce(r.owner_agent_id, w.agent_id)
           LEFT JOIN workflow_templates tp ON tp.name = r.workflow_type
          WHERE r.status = 'queued' AND NOT (r.id = ANY($1::uuid[])) AND ($2::uuid IS NULL OR r.id = $2)
          ORDER BY w.priority DESC, r.created_at, r.id
          LIMIT ${batchSize} FOR UPDATE OF r SKIP LOCKED`,
        [held, onlyRunId ?? null],
      );
      if (candidates.length === 0) return 0;
      const toDispatch: Array<{ id: string; target: string }> = [];
      const toStop = new Map<string, string>();
      const inFlightStops = new Map<string, string>();
      for (const c of candidates) {
        const target = c.owner_agent_id ?? c.route_agent;
        const verdict = await verdictOf({
          runId: c.id,
          workflowType: c.workflow_type,
          targetAgentId: target,
          ownerAgentId: c.owner_agent_id,
          taskId: c.task_id,
          projectId: c.project_id,
          departmentId: c.department_id,
        });
        if (verdict.verdict === 'hold') {
          held.push(c.id);
          summary.budgetEnforcement.held++;
        } else if (verdict.verdict === 'stop') {
          toStop.set(c.id, verdict.reason);
          summary.budgetEnforcement.stopped++;
          for (const id of verdict.cancelRunIds ?? []) if (id !== c.id) inFlightStops.set(id, verdict.reason);
        } else {
          if (verdict.verdict === 'warn') summary.budgetEnforcement.warned++;
          toDispatch.push({ id: c.id, target });
        }
      }
      const at = now();
      const before = new Map(candidates.map((c) => [c.id, stripCandidate(c)]));
      if (toDispatch.length) {
        const { rows: after } = await tx.query<WorkflowRun>(
          `UPDATE workflow_runs r SET status = '${transitionOf('dispatch').to}', target_agent_id = x.target, dispatched_at = $1,
                  dispatch_attempts = r.dispatch_attempts + 1, updated_at = $1
             FROM unnest($2::uuid[], $3::text[]) AS x(id, target)
            WHERE r.id = x.id RETURNING ${qualified('r')}`,
          [at, toDispatch.map((d) => d.id), toDispatch.map((d) => d.target)],
        );
        await recordRunBatch(deps, tx, after.map((a) => ({ before: before.get(a.id)!, after: a })), { actor, action: 'dispatched' });
        wakes.push(...after.map((run) => ({ run })));
        summary.dispatched += after.length;
      }
      if (toStop.size) {
        await budgetCancel(deps, tx, [...toStop], at, actor, before);
      }
      if (inFlightStops.size) {
        const { rows: inFlight } = await tx.query<WorkflowRun>(
          `SELECT ${runColumns} FROM workflow_runs WHERE id = ANY($1::uuid[]) AND status = ANY($2::text[]) FOR UPDATE SKIP LOCKED`,
          [[...inFlightStops.keys()], transitionOf('budget_stop').from],
        );
        summary.budgetEnforcement.cancelledInFlight += await budgetCancel(
          deps,
          tx,
          inFlight.map((r) => [r.id, inFlightStops.get(r.id)!] as [string, string]),
          at,
          actor,
          new Map(inFlight.map((r) => [r.id, r])),
        );
      }
      return candidates.length;
    });
    if (picked < batchSize) break;
  }
}

/** What dispatching one run now did: whether it left the queue, and the wake of its agent. */
export interface RunDispatch {
  dispatched: boolean;
  heldByBudget: boolean;
  stoppedByBudget: boolean;
  woken: number;
  wakeErrors: string[];
}

/**
 * One queued run dispatched now, as a tick would dispatch it (route, budget gate, mark dispatched,
 * wake the agent), without the tick's recovery or summary: the operator's start of a queued run.
 */
export async function dispatchRunNow(deps: Deps, runId: string, inputs: TickInputs = {}): Promise<RunDispatch> {
  const summary = emptySummary(inputs.source ?? 'start', deps.clock.now());
  const wakes: Wake[] = [];
  await dispatchQueued(deps, inputs, summary, wakes, runId);
  const outcome = await wakeAgents(deps, wakes.map((w) => w.run), inputs.claimUrlBase);
  return {
    dispatched: summary.dispatched > 0,
    heldByBudget: summary.budgetEnforcement.held > 0,
    stoppedByBudget: summary.budgetEnforcement.stopped > 0,
    woken: outcome.woken,
    wakeErrors: outcome.errors,
  };
}

function qualified(alias: string): string {
  return runColumns
    .split(', ')
    .map((c) => `${alias}.${c}`)
    .join(', ');
}

function stripCandidate(c: WorkflowRun & { route_agent: string; project_id: string | null; department_id: string | null }): WorkflowRun {
  const { route_agent: _a, project_id: _p, department_id: _d, ...run } = c;
  return run as WorkflowRun;
}

/** Budget hard stop: the runs are cancelled with the budget's reason. */
async function budgetCancel(
  deps: Deps,
  tx: Db,
  stops: Array<[string, string]>,
  at: Date,
  actor: string,
  before: Map<string, WorkflowRun>,
): Promise<number> {
  if (stops.length === 0) return 0;
  const { rows: after } = await tx.query<WorkflowRun>(
    `UPDATE workflow_runs r SET status = '${transitionOf('budget_stop').to}', finished_at = $1, gateway_session_active = false,
            last_error = 'cancelled by budget hard stop: ' || x.reason, updated_at = $1
       FROM unnest($2::uuid[], $3::text[]) AS x(id, reason)
      WHERE r.id = x.id RETURNING ${qualified('r')}`,
    [at, stops.map((s) => s[0]), stops.map((s) => s[1])],
  );
  await clearTaskPointers(tx, after);
  await recordRunBatch(deps, tx, after.map((a) => ({ before: before.get(a.id)!, after: a })), { actor, action: 'budget_stopped' });
  return after.length;
}

/** Runs that ended no longer are their task's live run. */
async function clearTaskPointers(tx: Db, runs: readonly WorkflowRun[]): Promise<void> {
  const ended = runs.filter((r) => r.task_id && ['failed', 'cancelled', 'timed_out', 'completed'].includes(r.status));
  if (ended.length === 0) return;
  await tx.query(
    `UPDATE tasks SET active_workflow_run_id = NULL
      WHERE id = ANY($1::uuid[]) AND active_workflow_run_id = ANY($2::text[])`,
    [ended.map((r) => r.task_id), ended.map((r) => r.id)],
  );
}

const KEPT_TICKS = 100;

async function storeTickSummary(db: Db, summary: TickSummary, started: Date, finished: Date): Promise<void> {
  await db.query(
    `WITH inserted AS (
       INSERT INTO dispatcher_ticks (started_at, finished_at, source, summary) VALUES ($1, $2, $3, $4) RETURNING id)
     DELETE FROM dispatcher_ticks WHERE id <= (SELECT id FROM inserted) - ${KEPT_TICKS}`,
    [started, finished, summary.source, JSON.stringify(summary)],
  );
}
