import { recordChange } from '../audit/record-change';
import * as z from 'zod';
import { ActiveRunExistsError, ConflictError, IdempotencyConflictError, ValidationError } from '../errors';
import type { Db, Deps } from '../ports';
import { requireDb } from '../storage';
import { parseInput } from '../validation';
import { requireGovernance } from './governance';
import { getRunDetail, runDetailSchema } from './run-queries';
import { activeRunStatuses } from './run-status';
import { lookUpKey, rememberKey, requestHash } from './run-idempotency';
import { runEvent, syncTaskPointer } from './run-store';
import { createRunSchema, idempotencyKeySchema, runColumns, type CreateRunInput, type WorkflowRun } from './run';
import { findTemplate } from './templates';
import { stepNameOf } from './template';

/*
 * Creating a run: the operator's create (governance: create_run, with its idempotency key) and the
 * queued insert that the system scan and governed actions share.
 */

/**
 * Inserts a queued run and its step rows inside the caller's transaction:
 * 1. the template must exist and be active; 2. the task, when named, must exist;
 * 3. steps are copied from the template with dense step_order 0..N-1; 4. audit, event, task pointer.
 */
export async function insertQueuedRun(deps: Deps, tx: Db, input: Omit<CreateRunInput, 'actor'>, actor: string): Promise<WorkflowRun> {
  const template = await findTemplate(tx, input.workflow_type);
  if (!template) {
    throw new ValidationError(`workflow_type: no workflow template named ${input.workflow_type}`, [
      { path: 'workflow_type', message: 'no such template' },
    ]);
  }
  if (!template.is_active) throw new ConflictError(`workflow template ${input.workflow_type} is inactive`);
  let projectId: string | null = null;
  if (input.task_id) {
    const exclusive = template.exclusive_per_task || (await routeIsExclusive(tx, input.workflow_type));
    // an exclusive workflow locks the task row, so two creates for one task cannot both see it free
    const { rows } = await tx.query<{ project_id: string }>(
      `SELECT project_id FROM tasks WHERE id = $1 AND deleted_at IS NULL${exclusive ? ' FOR UPDATE' : ''}`,
      [input.task_id],
    );
    if (!rows[0])
      throw new ValidationError(`task_id: task ${input.task_id} does not exist`, [{ path: 'task_id', message: 'no such task' }]);
    projectId = rows[0].project_id;
    if (exclusive) await assertNoActiveRun(tx, input.task_id);
  }
  const id = deps.ids.uuid();
  const now = deps.clock.now();
  const { rows } = await tx.query<WorkflowRun>(
    `INSERT INTO workflow_runs (id, workflow_type, status, task_id, owner_agent_id, input_payload, metadata, created_by, created_at, updated_at)
     VALUES ($1, $2, 'queued', $3, $4, $5, $6, $7, $8, $8) RETURNING ${runColumns}`,
    [
      id,
      input.workflow_type,
      input.task_id,
      input.owner_agent_id,
      JSON.stringify(input.input_payload),
      JSON.stringify(input.metadata),
      actor,
      now,
    ],
  );
  const names = template.steps.map(stepNameOf);
  await tx.query(
    `INSERT INTO workflow_steps (id, run_id, step_name, step_order, status, created_at, updated_at)
     SELECT s.id, $1, s.name, s.ord - 1, 'pending', $2, $2 FROM unnest($3::uuid[], $4::text[]) WITH ORDINALITY AS s(id, name, ord)`,
    [id, now, names.map(() => deps.ids.uuid()), names],
  );
  const run = rows[0]!;
  await syncTaskPointer(tx, run);
  await recordChange(deps, tx, {
    actor,
    action: 'created',
    entityType: 'workflow_run',
    entityId: id,
    taskId: run.task_id,
    projectId,
    newValue: run,
    event: runEvent('created', run),
  });
  return run;
}

async function routeIsExclusive(tx: Db, workflowType: string): Promise<boolean> {
  const { rows } = await tx.query<{ exclusive_per_task: boolean }>(
    'SELECT exclusive_per_task FROM workflow_agent_routing WHERE workflow_type = $1',
    [workflowType],
  );
  return rows[0]?.exclusive_per_task ?? false;
}

/** 409 active_run_exists when the task has a run still in play (queued, dispatched, held or paused). */
async function assertNoActiveRun(tx: Db, taskId: string): Promise<void> {
  const { rows } = await tx.query<{ id: string; status: string }>(
    'SELECT id, status FROM workflow_runs WHERE task_id = $1 AND status = ANY($2::text[]) ORDER BY created_at DESC, id LIMIT 1',
    [taskId, activeRunStatuses],
  );
  if (rows[0]) throw new ActiveRunExistsError(taskId, rows[0].id, rows[0].status);
}

/** POST /api/workflow-runs: the run's detail; `duplicate: true` when an idempotency key answered an earlier run. */
export const createdRunSchema = runDetailSchema.extend({ duplicate: z.literal(true).optional() });
export type CreatedRun = z.infer<typeof createdRunSchema>;

/**
 * POST /api/workflow-runs (governance: launch_workflow). With an idempotency key (the
 * Idempotency-Key header, or the body's idempotency_key; the header wins) a repeat of the same
 * request answers the first run with duplicate: true, and another request under the key is 409.
 */
export async function createRun(deps: Deps, body: unknown, options: { idempotencyKey?: unknown } = {}): Promise<CreatedRun> {
  const { idempotency_key: bodyKey, ...input } = parseInput(createRunSchema, body ?? {}, 'workflow run');
  const key = options.idempotencyKey !== undefined ? parseInput(idempotencyKeySchema, options.idempotencyKey, 'Idempotency-Key') : bodyKey;
  const db = requireDb(deps.storage);
  const outcome = await db.transaction(async (tx) => {
    await requireGovernance(tx, 'launch_workflow', input.actor);
    if (key === undefined) return { runId: (await insertQueuedRun(deps, tx, input, input.actor)).id, duplicate: false };
    const hash = requestHash(input);
    const now = deps.clock.now();
    const found = await lookUpKey(tx, key, hash, now);
    if (found.kind === 'replay') return { runId: found.runId, duplicate: true };
    if (found.kind === 'conflict') throw new IdempotencyConflictError(key, found.runId);
    const run = await insertQueuedRun(deps, tx, input, input.actor);
    await rememberKey(tx, key, hash, run.id, now);
    return { runId: run.id, duplicate: false };
  });
  const detail = await getRunDetail(deps, outcome.runId);
  return outcome.duplicate ? { ...detail, duplicate: true } : detail;
}
