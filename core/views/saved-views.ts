import { parseQuery } from '../query-params';
import { OPERATOR_ACTOR } from '../actors';
import { recordChange } from '../audit/record-change';
import { NotFoundError } from '../errors';
import { patchRow } from '../patch-row';
import type { Db, Deps } from '../ports';
import { requireDb } from '../storage';
import { parseId, parseInput } from '../validation';
import { requireProject, selectProject } from './project-selection';
import { createViewSchema, listViewsQuerySchema, savedViewColumns, updateViewSchema, type SavedView } from './saved-view';

type ViewDeps = Pick<Deps, 'storage' | 'clock' | 'ids' | 'events'>;

function viewEvent(action: string, viewId: string) {
  return { name: 'view:changed', payload: { action, viewId }, channel: 'events' as const };
}

async function findView(db: Db, id: string, lock = false): Promise<SavedView | undefined> {
  const { rows } = await db.query<SavedView>(`SELECT ${savedViewColumns} FROM saved_views WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0];
}

/** GET /api/views?project_id=: the project's saved views (the default project's when absent), oldest first. */
export async function listViews(deps: Pick<Deps, 'storage'>, query: unknown): Promise<SavedView[]> {
  const filter = parseQuery(listViewsQuerySchema, query);
  const db = requireDb(deps.storage);
  const project = await selectProject(db, filter.project_id);
  if (!project) return [];
  const { rows } = await db.query<SavedView>(`SELECT ${savedViewColumns} FROM saved_views WHERE project_id = $1 ORDER BY created_at, id`, [
    project.id,
  ]);
  return rows;
}

export async function getView(deps: Pick<Deps, 'storage'>, rawId: unknown): Promise<SavedView> {
  const id = parseId(rawId);
  const view = await findView(requireDb(deps.storage), id);
  if (!view) throw new NotFoundError(`view ${id} not found`);
  return view;
}

/** POST /api/views: validated filters; the project defaults to the default project; audited `created`. */
export async function createView(deps: ViewDeps, body: unknown, actor = OPERATOR_ACTOR): Promise<SavedView> {
  const input = parseInput(createViewSchema, body ?? {}, 'view');
  const db = requireDb(deps.storage);
  return db.transaction(async (tx) => {
    const project = await requireProject(tx, input.project_id);
    const id = deps.ids.uuid();
    const { rows } = await tx.query<SavedView>(
      `INSERT INTO saved_views (id, project_id, name, filters, sort, created_by, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING ${savedViewColumns}`,
      [id, project.id, input.name, input.filters, input.sort, input.created_by ?? actor, deps.clock.now()],
    );
    const view = rows[0]!;
    await recordChange(deps, tx, {
      actor,
      action: 'created',
      entityType: 'saved_view',
      entityId: id,
      projectId: project.id,
      newValue: view,
      event: viewEvent('created', id),
    });
    return view;
  });
}

/** PATCH /api/views/:id: any of name, filters (replaced whole), sort. */
export async function updateView(deps: ViewDeps, rawId: unknown, body: unknown, actor = OPERATOR_ACTOR): Promise<SavedView> {
  const id = parseId(rawId);
  const patch = parseInput(updateViewSchema, body ?? {}, 'view update');
  const db = requireDb(deps.storage);
  return db.transaction(async (tx) => {
    const before = await findView(tx, id, true);
    if (!before) throw new NotFoundError(`view ${id} not found`);
    const after = await patchRow<SavedView>(tx, {
      table: 'saved_views',
      key: id,
      set: patch,
      at: deps.clock.now(),
      returning: savedViewColumns,
    });
    await recordChange(deps, tx, {
      actor,
      action: 'updated',
      entityType: 'saved_view',
      entityId: id,
      projectId: before.project_id,
      oldValue: before,
      newValue: after,
      event: viewEvent('updated', id),
    });
    return after!;
  });
}

export async function deleteView(deps: ViewDeps, rawId: unknown, actor = OPERATOR_ACTOR): Promise<{ deleted: true; id: string }> {
  const id = parseId(rawId);
  const db = requireDb(deps.storage);
  await db.transaction(async (tx) => {
    const before = await findView(tx, id, true);
    if (!before) throw new NotFoundError(`view ${id} not found`);
    await tx.query('DELETE FROM saved_views WHERE id = $1', [id]);
    await recordChange(deps, tx, {
      actor,
      action: 'deleted',
      entityType: 'saved_view',
      entityId: id,
      projectId: before.project_id,
      oldValue: before,
      event: viewEvent('deleted', id),
    });
  });
  return { deleted: true, id };
}
