import * as z from 'zod';
import { OPERATOR_ACTOR } from '../actors';
import { recordChange } from '../audit/record-change';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import type { Deps } from '../ports';
import { runtimeCalls } from '../runtime/calls';
import { replyText } from '../runtime/payload';
import { requireDb } from '../storage';
import { parseInput, uuidSchema } from '../validation';
import { requireGovernance } from './governance';
import { actorSchema } from './run';
import { insertQueuedRun } from './run-create';
import { findRun } from './run-store';

/** The template a scan run uses (seeded by migration 0200). */
export const SYSTEM_SCAN_TYPE = 'system-scan';

const runScanSchema = z
  .strictObject({
    scan_areas: z.array(z.string().trim().min(1).max(100)).min(1, 'name at least one area').max(20, 'at most 20 areas').optional(),
    max_suggestions: z.number().int('must be a whole number').min(1, 'must be at least 1').max(50, 'must be at most 50').default(10),
    actor: actorSchema,
  })
  .default({ max_suggestions: 10, actor: OPERATOR_ACTOR });

const followUpSchema = z.strictObject({
  run_id: uuidSchema,
  message: z.string().trim().min(1, 'must not be empty').max(10_000, 'at most 10000 characters'),
  actor: actorSchema,
});

/**
 * POST /api/system-scan/run (governance: launch_workflow): queues a system-scan run whose agent
 * proposes approval-gated suggestions; the dispatcher routes it like any other run.
 */
export async function runSystemScan(deps: Deps, body: unknown) {
  const input = parseInput(runScanSchema, body ?? {}, 'system scan');
  const run = await requireDb(deps.storage).transaction(async (tx) => {
    await requireGovernance(tx, 'launch_workflow', input.actor);
    return insertQueuedRun(
      deps,
      tx,
      {
        workflow_type: SYSTEM_SCAN_TYPE,
        task_id: null,
        owner_agent_id: null,
        metadata: { source: 'system-scan' },
        input_payload: {
          scan_areas: input.scan_areas ?? ['all'],
          max_suggestions: input.max_suggestions,
          instructions:
            'Scan the named areas and propose at most max_suggestions improvements, each as an approval request; change nothing without approval.',
        },
      },
      input.actor,
    );
  });
  return {
    workflowRunId: run.id,
    status: run.status,
    message: `system scan queued as workflow run ${run.id}; the dispatcher hands it to the agent routed for ${SYSTEM_SCAN_TYPE}`,
  };
}

/**
 * POST /api/system-scan/followup: sends a message into the scan run's agent session through the
 * runtime (`agent --session-key KEY --message TEXT --json`). The session is the run's live
 * gateway session, else its claim session, else the last one it had. The send is audited after it succeeds.
 */
export async function sendScanFollowUp(deps: Deps, body: unknown) {
  const input = parseInput(followUpSchema, body ?? {}, 'follow-up');
  const db = requireDb(deps.storage);
  const run = await findRun(db, input.run_id);
  if (!run) throw new NotFoundError(`workflow run ${input.run_id} not found`);
  if (run.workflow_type !== SYSTEM_SCAN_TYPE) {
    throw new ValidationError(`run_id: workflow run ${run.id} is a ${run.workflow_type} run, not a system scan`, [
      { path: 'run_id', message: 'not a system scan run' },
    ]);
  }
  const sessionKey = run.gateway_session_id ?? run.claim_session_id ?? run.session_history.at(-1) ?? null;
  if (!sessionKey)
    throw new ConflictError(
      `system scan run ${run.id} has no agent session yet (status ${run.status}); follow up once an agent has claimed it`,
      { status: run.status },
    );
  const reply = await deps.runtime.run(runtimeCalls.agentMessage(sessionKey, input.message));
  await db.transaction(async (tx) => {
    await recordChange(deps, tx, {
      actor: input.actor,
      action: 'followup_sent',
      entityType: 'workflow_run',
      entityId: run.id,
      taskId: run.task_id,
      newValue: { session_key: sessionKey, message: input.message },
    });
  });
  return { run_id: run.id, session_key: sessionKey, delivered: true, reply: replyText(reply) };
}
