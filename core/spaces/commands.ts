import { OPERATOR_ACTOR } from '../actors';
import { recordChange, recordChanges } from '../audit/record-change';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import { patchRow } from '../patch-row';
import type { Db, Deps } from '../ports';
import { projectColumns, type Project } from '../projects/project';
import { requireDb } from '../storage';
import { parseId, parseInput } from '../validation';
import {
  assignProjectsSchema,
  createSpaceSchema,
  duplicateSpaceSchema,
  slugFrom,
  updateSpaceSchema,
  workspaceColumns,
  type Workspace,
} from './space';

type SpaceDeps = Pick<Deps, 'storage' | 'clock' | 'ids' | 'events'>;

export function spaceEvent(action: string, spaceId: string) {
  return { name: 'space:changed', payload: { action, spaceId }, channel: 'events' as const };
}

const DEFAULT_LOCK = 7_100_002;

/**
 * Spec 01: exactly one default workspace at all times. The first use of workspaces creates
 * "Default" (audited, actor system) when none exists; setting a default clears the old one in
 * the same transaction; the default can be neither deleted nor un-defaulted directly.
 */
export async function ensureDefaultWorkspace(deps: SpaceDeps, tx: Db): Promise<void> {
  const { rowCount } = await tx.query('SELECT 1 FROM workspaces WHERE is_default');
  if (rowCount) return;
  await tx.query('SELECT pg_advisory_xact_lock($1)', [DEFAULT_LOCK]);
  const again = await tx.query<{ id: string }>('SELECT id FROM workspaces ORDER BY sort_order, created_at, id LIMIT 1 FOR UPDATE');
  if ((await tx.query('SELECT 1 FROM workspaces WHERE is_default')).rowCount) return;
  const now = deps.clock.now();
  const existing = again.rows[0];
  if (existing) {
    // workspaces exist but none is default (e.g. after an import): the first one becomes it
    const { rows } = await tx.query<Workspace>(
      `UPDATE workspaces SET is_default = true, updated_at = $2 WHERE id = $1 RETURNING ${workspaceColumns}`,
      [existing.id, now],
    );
    await recordChange(deps, tx, {
      actor: 'system',
      action: 'set_default',
      entityType: 'workspace',
      entityId: existing.id,
      newValue: rows[0],
      event: spaceEvent('set_default', existing.id),
    });
    return;
  }
  const id = deps.ids.uuid();
  const slug = await freeSlug(tx, 'default');
  const { rows } = await tx.query<Workspace>(
    `INSERT INTO workspaces (id, name, slug, is_default, created_at, updated_at) VALUES ($1, 'Default', $2, true, $3, $3) RETURNING ${workspaceColumns}`,
    [id, slug, now],
  );
  await recordChange(deps, tx, {
    actor: 'system',
    action: 'created',
    entityType: 'workspace',
    entityId: id,
    newValue: rows[0],
    event: spaceEvent('created', id),
  });
}

/** `base`, or `base-2`, `base-3`, … whichever is free. */
async function freeSlug(db: Db, base: string): Promise<string> {
  const { rows } = await db.query<{ slug: string }>(`SELECT slug FROM workspaces WHERE slug = $1 OR slug LIKE $1 || '-%'`, [base]);
  const taken = new Set(rows.map((r) => r.slug));
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

async function assertSlugFree(db: Db, slug: string, exceptId?: string): Promise<void> {
  const { rowCount } = await db.query('SELECT 1 FROM workspaces WHERE slug = $1 AND id IS DISTINCT FROM $2', [slug, exceptId ?? null]);
  if (rowCount) throw new ConflictError(`slug ${slug} is already used by another workspace`);
}

export async function findWorkspace(db: Db, id: string, lock = false): Promise<Workspace | undefined> {
  const { rows } = await db.query<Workspace>(`SELECT ${workspaceColumns} FROM workspaces WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0];
}

async function requireWorkspace(db: Db, id: string, lock = false): Promise<Workspace> {
  const ws = await findWorkspace(db, id, lock);
  if (!ws) throw new NotFoundError(`workspace ${id} not found`);
  return ws;
}

async function insertWorkspace(
  deps: SpaceDeps,
  tx: Db,
  fields: Omit<Workspace, 'id' | 'created_at' | 'updated_at' | 'is_default'>,
  action: string,
  actor: string,
) {
  const id = deps.ids.uuid();
  const { rows } = await tx.query<Workspace>(
    `INSERT INTO workspaces (id, name, slug, icon, color, description, settings, sort_order, is_default, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, false, $9, $9) RETURNING ${workspaceColumns}`,
    [id, fields.name, fields.slug, fields.icon, fields.color, fields.description, fields.settings, fields.sort_order, deps.clock.now()],
  );
  await recordChange(deps, tx, { actor, action, entityType: 'workspace', entityId: id, newValue: rows[0], event: spaceEvent(action, id) });
  return rows[0]!;
}

/** POST /api/spaces: slug given (409 when taken) or derived from the name (made unique). Sorted last. */
export async function createSpace(deps: SpaceDeps, body: unknown, actor = OPERATOR_ACTOR): Promise<Workspace> {
  const input = parseInput(createSpaceSchema, body ?? {}, 'workspace');
  const db = requireDb(deps.storage);
  return db.transaction(async (tx) => {
    await ensureDefaultWorkspace(deps, tx);
    if (input.slug) await assertSlugFree(tx, input.slug);
    const slug = input.slug ?? (await freeSlug(tx, slugFrom(input.name)));
    const { rows } = await tx.query<{ next: number }>('SELECT coalesce(max(sort_order), -1)::int + 1 AS next FROM workspaces');
    return insertWorkspace(deps, tx, { ...input, slug, sort_order: rows[0]!.next }, 'created', actor);
  });
}

/** Makes `target` the one default, clearing the previous default, both audited. */
async function makeDefault(deps: SpaceDeps, tx: Db, target: Workspace, actor: string): Promise<Workspace> {
  await tx.query('SELECT pg_advisory_xact_lock($1)', [DEFAULT_LOCK]);
  const now = deps.clock.now();
  const { rows: previous } = await tx.query<Workspace>(
    `SELECT ${workspaceColumns} FROM workspaces WHERE is_default AND id <> $1 FOR UPDATE`,
    [target.id],
  );
  for (const old of previous) {
    const { rows } = await tx.query<Workspace>(
      `UPDATE workspaces SET is_default = false, updated_at = $2 WHERE id = $1 RETURNING ${workspaceColumns}`,
      [old.id, now],
    );
    await recordChange(deps, tx, {
      actor,
      action: 'unset_default',
      entityType: 'workspace',
      entityId: old.id,
      oldValue: old,
      newValue: rows[0],
      event: spaceEvent('updated', old.id),
    });
  }
  const { rows } = await tx.query<Workspace>(
    `UPDATE workspaces SET is_default = true, updated_at = $2 WHERE id = $1 RETURNING ${workspaceColumns}`,
    [target.id, now],
  );
  await recordChange(deps, tx, {
    actor,
    action: 'set_default',
    entityType: 'workspace',
    entityId: target.id,
    oldValue: target,
    newValue: rows[0],
    event: spaceEvent('set_default', target.id),
  });
  return rows[0]!;
}

/**
 * PUT /api/spaces/:id: any writable field. `is_default: true` makes it the default;
 * `is_default: false` on the default is refused (409): choose another default instead.
 */
export async function updateSpace(deps: SpaceDeps, rawId: unknown, body: unknown, actor = OPERATOR_ACTOR): Promise<Workspace> {
  const id = parseId(rawId);
  const patch = parseInput(updateSpaceSchema, body ?? {}, 'workspace update');
  const db = requireDb(deps.storage);
  return db.transaction(async (tx) => {
    await ensureDefaultWorkspace(deps, tx);
    let current = await requireWorkspace(tx, id, true);
    if (patch.is_default === false && current.is_default) {
      throw new ConflictError(`workspace ${id} is the default; set another workspace as default instead`);
    }
    if (patch.slug && patch.slug !== current.slug) await assertSlugFree(tx, patch.slug, id);
    const { is_default, ...fields } = patch;
    if (Object.keys(fields).length) {
      const after = (await patchRow<Workspace>(tx, {
        table: 'workspaces',
        key: id,
        set: fields,
        at: deps.clock.now(),
        returning: workspaceColumns,
      }))!;
      await recordChange(deps, tx, {
        actor,
        action: 'updated',
        entityType: 'workspace',
        entityId: id,
        oldValue: current,
        newValue: after,
        event: spaceEvent('updated', id),
      });
      current = after;
    }
    if (is_default && !current.is_default) current = await makeDefault(deps, tx, current, actor);
    return current;
  });
}

/** POST /api/spaces/:id/set-default */
export async function setDefaultSpace(deps: SpaceDeps, rawId: unknown, actor = OPERATOR_ACTOR): Promise<Workspace> {
  const id = parseId(rawId);
  const db = requireDb(deps.storage);
  return db.transaction(async (tx) => {
    await ensureDefaultWorkspace(deps, tx);
    const target = await requireWorkspace(tx, id, true);
    return target.is_default ? target : makeDefault(deps, tx, target, actor);
  });
}

/** DELETE /api/spaces/:id: refused (409) for the default; its projects become unassigned. */
export async function deleteSpace(deps: SpaceDeps, rawId: unknown, actor = OPERATOR_ACTOR): Promise<{ deleted: true }> {
  const id = parseId(rawId);
  const db = requireDb(deps.storage);
  await db.transaction(async (tx) => {
    await ensureDefaultWorkspace(deps, tx);
    const before = await requireWorkspace(tx, id, true);
    if (before.is_default) throw new ConflictError('the default workspace cannot be deleted; set another workspace as default first');
    await tx.query('DELETE FROM workspaces WHERE id = $1', [id]);
    await recordChange(deps, tx, {
      actor,
      action: 'deleted',
      entityType: 'workspace',
      entityId: id,
      oldValue: before,
      event: spaceEvent('deleted', id),
    });
  });
  return { deleted: true };
}

/** POST /api/spaces/:id/duplicate {slug?}: a non-default copy with the same settings, named "<name> (copy)"; no projects. */
export async function duplicateSpace(deps: SpaceDeps, rawId: unknown, body: unknown, actor = OPERATOR_ACTOR): Promise<Workspace> {
  const id = parseId(rawId);
  const input = parseInput(duplicateSpaceSchema, body ?? {}, 'duplicate');
  const db = requireDb(deps.storage);
  return db.transaction(async (tx) => {
    await ensureDefaultWorkspace(deps, tx);
    const source = await requireWorkspace(tx, id);
    if (input.slug) await assertSlugFree(tx, input.slug);
    const slug = input.slug ?? (await freeSlug(tx, `${source.slug.slice(0, 56)}-copy`));
    const { rows } = await tx.query<{ next: number }>('SELECT coalesce(max(sort_order), -1)::int + 1 AS next FROM workspaces');
    return insertWorkspace(
      deps,
      tx,
      {
        name: `${source.name} (copy)`.slice(0, 200),
        slug,
        icon: source.icon,
        color: source.color,
        description: source.description,
        settings: source.settings,
        sort_order: rows[0]!.next,
      },
      'duplicated',
      actor,
    );
  });
}

/**
 * PUT /api/spaces/:id/projects {project_ids}: the workspace's projects become exactly these
 * (moved from any other workspace); projects no longer listed are unassigned. Each moved
 * project is audited as a project update; unknown ids are a 400 naming them.
 */
export async function assignProjects(deps: SpaceDeps, rawId: unknown, body: unknown, actor = OPERATOR_ACTOR) {
  const id = parseId(rawId);
  const wanted = [...new Set(parseInput(assignProjectsSchema, body ?? {}, 'assignment').project_ids)];
  const db = requireDb(deps.storage);
  return db.transaction(async (tx) => {
    await ensureDefaultWorkspace(deps, tx);
    await requireWorkspace(tx, id, true);
    const { rows: found } = await tx.query<Project>(`SELECT ${projectColumns} FROM projects WHERE id = ANY($1::uuid[]) FOR UPDATE`, [
      wanted,
    ]);
    const missing = wanted.filter((p) => !found.some((f) => f.id === p));
    if (missing.length)
      throw new ValidationError(`project_ids: no such project ${missing.join(', ')}`, [
        { path: 'project_ids', message: `no such project: ${missing.join(', ')}` },
      ]);
    const { rows: leaving } = await tx.query<Project>(
      `SELECT ${projectColumns} FROM projects WHERE workspace_id = $1 AND NOT (id = ANY($2::uuid[])) FOR UPDATE`,
      [id, wanted],
    );
    const arriving = found.filter((p) => p.workspace_id !== id);
    const moving = [...arriving, ...leaving];
    if (moving.length) {
      // one statement for every moved project, then their traces in two more (plus one event each)
      const { rows: moved } = await tx.query<Project>(
        `UPDATE projects p SET workspace_id = x.target, updated_at = $3
           FROM unnest($1::uuid[], $2::uuid[]) AS x(id, target)
          WHERE p.id = x.id RETURNING ${projectColumns
            .split(', ')
            .map((c) => `p.${c}`)
            .join(', ')}`,
        [moving.map((p) => p.id), moving.map((p) => (p.workspace_id === id ? null : id)), deps.clock.now()],
      );
      const after = new Map(moved.map((p) => [p.id, p]));
      await recordChanges(
        deps,
        tx,
        moving.map((project) => ({
          actor,
          action: 'updated',
          entityType: 'project',
          entityId: project.id,
          projectId: project.id,
          oldValue: project,
          newValue: after.get(project.id),
          event: { name: 'project:changed', payload: { action: 'updated', projectId: project.id }, channel: 'events' as const },
        })),
      );
    }
    const result = { workspace_id: id, project_ids: wanted, assigned: arriving.map((p) => p.id), unassigned: leaving.map((p) => p.id) };
    if (arriving.length || leaving.length) {
      await recordChange(deps, tx, {
        actor,
        action: 'projects_assigned',
        entityType: 'workspace_projects',
        entityId: id,
        newValue: result,
        event: spaceEvent('projects_assigned', id),
      });
    }
    return result;
  });
}
