import { OPERATOR_ACTOR } from '../actors';
import { recordChange } from '../audit/record-change';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import { patchRow } from '../patch-row';
import type { Db, Deps } from '../ports';
import { requireDb } from '../storage';
import { parseId, parseInput } from '../validation';
import { createProjectSchema, projectColumns, updateProjectSchema, type Project } from './project';
import { findProject, getProject, type ProjectWithWorkflow } from './queries';

function projectEvent(action: string, projectId: string) {
  return { name: 'project:changed', payload: { action, projectId }, channel: 'events' as const };
}

async function assertWorkflowExists(db: Db, workflowId: string | null | undefined): Promise<void> {
  if (!workflowId) return;
  const { rowCount } = await db.query('SELECT 1 FROM workflows WHERE id = $1', [workflowId]);
  if (!rowCount) {
    throw new ValidationError(`default_workflow_id: workflow ${workflowId} does not exist`, [
      { path: 'default_workflow_id', message: 'no such workflow' },
    ]);
  }
}

/** Creates a project: validate, insert, audit `created`, publish project:changed. */
export async function createProject(deps: Deps, body: unknown, actor = OPERATOR_ACTOR): Promise<ProjectWithWorkflow> {
  const input = parseInput(createProjectSchema, body ?? {}, 'project');
  const db = requireDb(deps.storage);
  const id = deps.ids.uuid();
  const now = deps.clock.now();
  await db.transaction(async (tx) => {
    await assertWorkflowExists(tx, input.default_workflow_id);
    const { rows } = await tx.query<Project>(
      `INSERT INTO projects (id, name, description, status, tags, default_workflow_id, metadata, qmd_project_namespace, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING ${projectColumns}`,
      [
        id,
        input.name,
        input.description,
        input.status,
        input.tags,
        input.default_workflow_id,
        input.metadata,
        input.qmd_project_namespace,
        now,
      ],
    );
    await recordChange(deps, tx, {
      actor,
      action: 'created',
      entityType: 'project',
      entityId: id,
      projectId: id,
      newValue: rows[0],
      event: projectEvent('created', id),
    });
  });
  return getProject(deps, id);
}

/** Updates the given fields of a project: lock the row, apply, audit `updated` with before and after. */
export async function updateProject(deps: Deps, rawId: unknown, body: unknown, actor = OPERATOR_ACTOR): Promise<ProjectWithWorkflow> {
  const id = parseId(rawId);
  const patch = parseInput(updateProjectSchema, body ?? {}, 'project update');
  const db = requireDb(deps.storage);
  await db.transaction(async (tx) => {
    const before = await findProject(tx, id, true);
    if (!before) throw new NotFoundError(`project ${id} not found`);
    await assertWorkflowExists(tx, patch.default_workflow_id);
    const after = await patchRow<Project>(tx, { table: 'projects', key: id, set: patch, at: deps.clock.now(), returning: projectColumns });
    await recordChange(deps, tx, {
      actor,
      action: patch.status && patch.status !== before.status ? 'status_changed' : 'updated',
      entityType: 'project',
      entityId: id,
      projectId: id,
      oldValue: before,
      newValue: after,
      event: projectEvent('updated', id),
    });
  });
  return getProject(deps, id);
}

/**
 * Deletes a project. Refused with 409 while it still holds tasks that are not soft-deleted,
 * so a project's work is never lost as a side effect; its soft-deleted tasks and saved views go with it.
 */
export async function deleteProject(deps: Deps, rawId: unknown, actor = OPERATOR_ACTOR): Promise<{ deleted: true; id: string }> {
  const id = parseId(rawId);
  const db = requireDb(deps.storage);
  await db.transaction(async (tx) => {
    const before = await findProject(tx, id, true);
    if (!before) throw new NotFoundError(`project ${id} not found`);
    const { rows } = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM tasks WHERE project_id = $1 AND deleted_at IS NULL', [
      id,
    ]);
    const live = rows[0]?.n ?? 0;
    if (live > 0) {
      throw new ConflictError(`project ${id} still has ${live} task(s); delete or move them first`, { tasks: live });
    }
    await tx.query('DELETE FROM projects WHERE id = $1', [id]);
    await recordChange(deps, tx, {
      actor,
      action: 'deleted',
      entityType: 'project',
      entityId: id,
      projectId: id,
      oldValue: before,
      event: projectEvent('deleted', id),
    });
  });
  return { deleted: true, id };
}
