import * as z from 'zod';
import { parseQuery } from '../query-params';
import { OPERATOR_ACTOR } from '../actors';
import { recordChange } from '../audit/record-change';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import { pageAndTotal } from '../list-page';
import type { Db, Deps } from '../ports';
import { requireDb } from '../storage';
import { jsonObjectSchema, parseId, parseInput, uuidSchema, withAliases } from '../validation';
import { requireGovernance } from './governance';
import { actorSchema, agentActorSchema, agentIdSchema, sessionKeySchema, workflowRunSchema, type WorkflowRun } from './run';
import { transitionFor, transitionOf } from './run-status';
import { assertSession, assertTransition, changeRun, lockRun } from './run-store';

/** An approval as the API answers it (spec 03 approvals). */
export const approvalSchema = z.object({
  id: z.string(),
  workflow_run_id: z.string(),
  step_name: z.string(),
  status: z.enum(['pending', 'approved', 'rejected']),
  approver_id: z.string().nullable(),
  approval_type: z.string(),
  requested_by: z.string().nullable(),
  decided_by: z.string().nullable(),
  decided_at: z.date().nullable(),
  note: z.string().nullable(),
  escalated_to: z.string().nullable(),
  escalation_reason: z.string().nullable(),
  escalated_at: z.date().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  created_at: z.date(),
  updated_at: z.date(),
});
export type Approval = z.infer<typeof approvalSchema>;

/** What a run's request for an approval and a decision on one answer: the approval, and its run as it stands. */
export const approvalAndRunSchema = z.object({ approval: approvalSchema, run: workflowRunSchema });

export const approvalColumns =
  'id, workflow_run_id, step_name, status, approver_id, approval_type, requested_by, decided_by, decided_at, note, escalated_to, escalation_reason, escalated_at, metadata, created_at, updated_at';

const note = z.string().trim().max(5000, 'at most 5000 characters');

export const requestApprovalSchema = z.strictObject({
  session_id: sessionKeySchema,
  step_name: z.string().trim().min(1).max(200),
  approver_id: agentIdSchema.nullable().default(null),
  approval_type: z.string().trim().min(1).max(100).default('manual'),
  metadata: jsonObjectSchema.default({}),
  actor: agentActorSchema,
});
/** `notes` is the original front end's name for `note`. */
export const decideApprovalSchema = withAliases(
  { notes: 'note' },
  z.strictObject({
    decision: z.enum(['approved', 'rejected'], { message: 'must be approved or rejected' }),
    decided_by: agentIdSchema.optional(),
    note: note.optional(),
    actor: agentActorSchema,
  }),
);
export const escalateApprovalSchema = z.strictObject({
  escalated_to: agentIdSchema,
  reason: note.optional(),
  actor: actorSchema,
});
const limit = (fallback: number) =>
  z.coerce.number({ message: 'must be a number' }).int().min(1, 'must be at least 1').max(500, 'must be at most 500').default(fallback);
export const listApprovalsQuerySchema = z.strictObject({
  status: z.enum(['pending', 'approved', 'rejected']).optional(),
  workflow_run_id: uuidSchema.optional(),
  limit: limit(500),
});
export const pendingApprovalsQuerySchema = z.strictObject({ approver_id: agentIdSchema.optional(), limit: limit(50) });

function approvalEvent(action: string, approval: Approval) {
  return {
    name: 'run-updated',
    channel: 'stream' as const,
    payload: { action, runId: approval.workflow_run_id, approvalId: approval.id, status: approval.status },
  };
}

/**
 * POST /api/workflow-runs/:id/approvals: the holding session opens a pending approval for one of
 * the run's steps; the run waits (waiting_for_approval) until every pending approval is decided.
 */
export async function requestApproval(deps: Deps, rawRunId: unknown, body: unknown): Promise<{ approval: Approval; run: WorkflowRun }> {
  const input = parseInput(requestApprovalSchema, body ?? {}, 'approval request');
  const runId = parseId(rawRunId);
  return requireDb(deps.storage).transaction(async (tx) => {
    const run = await lockRun(tx, runId);
    assertSession(run, input.session_id);
    assertTransition(run, 'request_approval', 'request an approval for');
    const { rowCount } = await tx.query('SELECT 1 FROM workflow_steps WHERE run_id = $1 AND step_name = $2', [run.id, input.step_name]);
    if (!rowCount)
      throw new ValidationError(`step_name: workflow run ${run.id} has no step named ${input.step_name}`, [
        { path: 'step_name', message: 'no such step' },
      ]);
    const actor = input.actor ?? run.owner_agent_id ?? input.session_id;
    const now = deps.clock.now();
    const { rows } = await tx.query<Approval>(
      `INSERT INTO workflow_approvals (id, workflow_run_id, step_name, status, approver_id, approval_type, requested_by, metadata, created_at, updated_at)
       VALUES ($1, $2, $3, 'pending', $4, $5, $6, $7, $8, $8) RETURNING ${approvalColumns}`,
      [deps.ids.uuid(), run.id, input.step_name, input.approver_id, input.approval_type, actor, JSON.stringify(input.metadata), now],
    );
    const approval = rows[0]!;
    await recordChange(deps, tx, {
      actor,
      action: 'created',
      entityType: 'workflow_approval',
      entityId: approval.id,
      taskId: run.task_id,
      newValue: approval,
      event: approvalEvent('approval_requested', approval),
    });
    const after =
      run.status === 'waiting_for_approval'
        ? run
        : await changeRun(deps, tx, run, { actor, action: 'status_changed', set: { status: transitionOf('request_approval').to } });
    return { approval, run: after };
  });
}

export async function listApprovals(
  deps: Pick<Deps, 'storage'>,
  query: unknown,
): Promise<{ approvals: Approval[]; total: number; truncated: boolean }> {
  const q = parseQuery(listApprovalsQuerySchema, query);
  const { rows, total, truncated } = await pageAndTotal<Approval>(
    requireDb(deps.storage),
    {
      select: approvalColumns,
      from: 'workflow_approvals',
      where: '($1::text IS NULL OR status = $1) AND ($2::uuid IS NULL OR workflow_run_id = $2)',
      orderBy: 'created_at DESC, id DESC',
    },
    [q.status ?? null, q.workflow_run_id ?? null],
    q.limit,
  );
  return { approvals: rows, total, truncated };
}

/** GET /api/approvals/pending: oldest first, optionally for one approver (after escalation, the escalated_to approver). */
export async function listPendingApprovals(deps: Pick<Deps, 'storage'>, query: unknown): Promise<{ approvals: Approval[] }> {
  const q = parseQuery(pendingApprovalsQuerySchema, query);
  const { rows } = await requireDb(deps.storage).query<Approval>(
    `SELECT ${approvalColumns} FROM workflow_approvals
      WHERE status = 'pending' AND ($1::text IS NULL OR approver_id = $1)
      ORDER BY created_at, id LIMIT $2`,
    [q.approver_id ?? null, q.limit],
  );
  return { approvals: rows };
}

async function lockApproval(tx: Db, id: string): Promise<Approval> {
  const { rows } = await tx.query<Approval>(`SELECT ${approvalColumns} FROM workflow_approvals WHERE id = $1 FOR UPDATE`, [id]);
  if (!rows[0]) throw new NotFoundError(`approval ${id} not found`);
  return rows[0];
}

/**
 * PATCH /api/approvals/:id (governance: approve or reject). Decided once only: a second decision is
 * a 409. The waiting run moves on: approved back to running once no approval of it is pending,
 * rejected to failed with the rejection as last_error. A run no longer waiting keeps its status.
 */
export async function decideApproval(deps: Deps, rawId: unknown, body: unknown): Promise<{ approval: Approval; run: WorkflowRun }> {
  const input = parseInput(decideApprovalSchema, body ?? {}, 'approval decision');
  const id = parseId(rawId);
  const actor = input.actor ?? input.decided_by ?? OPERATOR_ACTOR;
  return requireDb(deps.storage).transaction(async (tx) => {
    await requireGovernance(tx, input.decision === 'approved' ? 'approve' : 'reject', actor);
    const before = await lockApproval(tx, id);
    const run = await lockRun(tx, before.workflow_run_id);
    if (before.status !== 'pending') {
      throw new ConflictError(`approval ${id} was already ${before.status} by ${before.decided_by ?? 'someone'}; a decision is final`, {
        status: before.status,
      });
    }
    const now = deps.clock.now();
    const { rows } = await tx.query<Approval>(
      `UPDATE workflow_approvals SET status = $2, decided_by = $3, decided_at = $4, note = $5, updated_at = $4 WHERE id = $1 RETURNING ${approvalColumns}`,
      [id, input.decision, input.decided_by ?? actor, now, input.note ?? null],
    );
    const approval = rows[0]!;
    await recordChange(deps, tx, {
      actor,
      action: 'status_changed',
      entityType: 'workflow_approval',
      entityId: id,
      taskId: run.task_id,
      oldValue: before,
      newValue: approval,
      event: approvalEvent(`approval_${input.decision}`, approval),
    });
    let after = run;
    if (input.decision === 'rejected' && transitionFor(run.status, 'approval_rejected')) {
      after = await changeRun(deps, tx, run, {
        actor,
        action: 'status_changed',
        set: {
          status: transitionOf('approval_rejected').to,
          finished_at: now,
          gateway_session_active: false,
          last_error: `approval of step ${approval.step_name} rejected by ${approval.decided_by}${input.note ? `: ${input.note}` : ''}`,
        },
      });
    } else if (input.decision === 'approved' && transitionFor(run.status, 'approval_granted')) {
      const { rowCount } = await tx.query(`SELECT 1 FROM workflow_approvals WHERE workflow_run_id = $1 AND status = 'pending'`, [run.id]);
      if (!rowCount)
        after = await changeRun(deps, tx, run, {
          actor,
          action: 'status_changed',
          set: { status: transitionOf('approval_granted').to, heartbeat_at: now },
        });
    }
    return { approval, run: after };
  });
}

/** POST /api/approvals/:id/escalate (governance: escalate_approval): a pending approval passes to the escalated_to approver. */
export async function escalateApproval(deps: Deps, rawId: unknown, body: unknown): Promise<{ approval: Approval }> {
  const input = parseInput(escalateApprovalSchema, body ?? {}, 'approval escalation');
  const id = parseId(rawId);
  return requireDb(deps.storage).transaction(async (tx) => {
    await requireGovernance(tx, 'escalate_approval', input.actor);
    const before = await lockApproval(tx, id);
    if (before.status !== 'pending')
      throw new ConflictError(`approval ${id} is already ${before.status}; only a pending approval can be escalated`, {
        status: before.status,
      });
    const now = deps.clock.now();
    const { rows } = await tx.query<Approval>(
      `UPDATE workflow_approvals SET approver_id = $2, escalated_to = $2, escalation_reason = $3, escalated_at = $4,
              metadata = metadata || jsonb_build_object('escalated_from', approver_id), updated_at = $4
        WHERE id = $1 RETURNING ${approvalColumns}`,
      [id, input.escalated_to, input.reason ?? null, now],
    );
    const approval = rows[0]!;
    await recordChange(deps, tx, {
      actor: input.actor,
      action: 'escalated',
      entityType: 'workflow_approval',
      entityId: id,
      oldValue: before,
      newValue: approval,
      event: approvalEvent('approval_escalated', approval),
    });
    return { approval };
  });
}
