import type { Deps } from '../ports';
import { parseInput } from '../validation';
import { requireGovernance } from './governance';
import { resumeTarget, transitionOf } from './run-status';
import { assertTransition, changeRun, withRun } from './run-store';
import {
  cancelRunSchema,
  escalateRunSchema,
  overrideFailureSchema,
  pauseRunSchema,
  reassignRunSchema,
  resumeRunSchema,
  type WorkflowRun,
} from './run';

/*
 * The operator's commands on a run, each checked against governance for its actor: cancel,
 * override-failure, pause, resume, reassign, escalate.
 */

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
          metadata: {
            ...run.metadata,
            last_override: { by: input.actor, reason: input.reason ?? null, from: run.status, error: run.last_error },
          },
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
        metadata: {
          ...run.metadata,
          last_override: { by: input.actor, reason: input.reason ?? null, from: run.status, error: run.last_error },
        },
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
        metadata: {
          ...run.metadata,
          reassigned: {
            from: run.owner_agent_id ?? run.target_agent_id,
            to: input.agent_id,
            by: input.actor,
            reason: input.reason ?? null,
          },
        },
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
