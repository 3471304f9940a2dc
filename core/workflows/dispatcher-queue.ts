import type { BudgetVerdict, CappedCounts, Db, Deps, DispatchCandidate, TickBudgetCheck, TickSummary } from '../ports';
import { budgetCancel } from './budget-stop';
import { AdmissionNeedsExclusive, dispatchIsCapped, openDispatchAdmission, type AdmissionMode } from './caps';
import { DISPATCH_LANES, inLanes, MAX_BATCHES, type TickContext } from './dispatcher-batches';
import { updateRunBatch, type ChangedRun } from './run-audit';
import { transitionOf } from './run-status';
import type { WorkflowRun } from './run';

/** A queued run as a dispatch batch reads it, with its route and what the budget gate asks about. */
type Candidate = Pick<WorkflowRun, 'id' | 'workflow_type' | 'owner_agent_id' | 'task_id'> & {
  route_agent: string;
  route_max_concurrent: number | null;
  route_expected_cost_usd: number | null;
  route_expected_tokens: number | null;
  project_id: string | null;
  department_id: string | null;
};
/** Phase 2's part of the tick summary, and the runs it dispatched (to wake, in queue order). */
export type DispatchPart = Pick<TickSummary, 'dispatched' | 'unrouted' | 'budgetEnforcement' | 'capped' | 'heldByPause'> & {
  toWake: ChangedRun[];
};

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
  for (const key of Object.keys(batch.budgetEnforcement) as Array<keyof DispatchPart['budgetEnforcement']>)
    into.budgetEnforcement[key] += batch.budgetEnforcement[key];
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
    slices.length > 1 &&
    (check === undefined || check.batchesIndependent === true) &&
    !(await dispatchIsCapped(ctx.db, deps.clock.now(), capSettingsOf(deps)));
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
  await inLanes(
    mode === 'shared' ? DISPATCH_LANES : 1,
    (lane) => nextSlice < slices.length && (lane === 0 || mode === 'shared'),
    dispatchSlice,
  );
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

function capSettingsOf(deps: Deps) {
  return { maxInFlight: deps.dispatcher.maxInFlight };
}

/** One batch in its transaction: what it counted and the runs it dispatched, once it commits. */
async function dispatchBatch(
  deps: Deps,
  ctx: TickContext,
  tx: Db,
  slice: readonly string[],
  gate: BatchGate,
  mode: AdmissionMode,
): Promise<DispatchPart> {
  const part = emptyDispatchPart();
  // the admission lock serialises counting batches across runners; budget reservations are read after
  // it, so runners dispatching at once count each other's dispatches
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

/** A dispatch batch's assignments over r and x(id, target), $1 the time. */
const dispatchAssignments: Record<string, string> = {
  status: `'${transitionOf('dispatch').to}'`,
  target_agent_id: 'x.target',
  dispatched_at: '$1',
  dispatch_attempts: 'r.dispatch_attempts + 1',
};
