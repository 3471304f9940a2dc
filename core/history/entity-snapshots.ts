import * as z from 'zod';
import type { Db } from '../ports';
import { projectColumns } from '../projects/project';
import { redactSecrets } from '../secrets/redact';
import { taskStoredColumns } from '../tasks/task';
import { savedViewColumns } from '../views/saved-view';

/** A per-entity state snapshot row (written by recordChange), as listings return it. */
/** A per-entity state snapshot as the API answers it (state with secret-keyed values redacted). */
export const entitySnapshotSchema = z.object({
  id: z.string(),
  entity_type: z.string(),
  entity_id: z.string(),
  reason: z.string(),
  actor: z.string(),
  created_at: z.date(),
  state: z.record(z.string(), z.unknown()),
});
export type EntitySnapshot = z.infer<typeof entitySnapshotSchema>;

export const snapshotColumns = 'id, entity_type, entity_id, reason, actor, created_at, state';

/** Snapshots leave the server with secret-keyed values redacted (spec 02 secrets policy). */
export function presentSnapshot(row: EntitySnapshot): EntitySnapshot {
  return { ...row, state: redactSecrets(row.state) };
}

export const entityTypeSchema = z.string().regex(/^[a-z][a-z0-9_.-]{0,63}$/, 'must be a lower-case entity type such as task');
export const entityIdSchema = z.string().min(1).max(200);

/** Writes a snapshot outside recordChange (the pre-revert state), in the caller's transaction. */
export async function insertSnapshot(
  tx: Db,
  row: { id: string; entityType: string; entityId: string; state: unknown; reason: string; actor: string; at: Date },
): Promise<void> {
  await tx.query(
    `INSERT INTO entity_snapshots (id, entity_type, entity_id, state, reason, actor, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [row.id, row.entityType, row.entityId, JSON.stringify(row.state), row.reason, row.actor, row.at],
  );
}

const columnsOf = (list: string) => list.split(',').map((c) => c.trim());

/**
 * Entities a state snapshot can be reverted to, as data: their table, the columns a revert
 * writes back (never updated_at, which the revert stamps, nor a workspace's is_default, which
 * would break the one-default rule), and the event their changes publish.
 */
export const revertableEntities: Readonly<
  Record<string, { table: string; columns: string[]; event: string; idKey: string; generated?: readonly string[] }>
> = {
  task: {
    table: 'tasks',
    columns: columnsOf(taskStoredColumns).filter((c) => c !== 'updated_at'),
    event: 'task:changed',
    idKey: 'taskId',
    // the row's own JSON text (migration 1050): derived from the columns, never part of a state
    generated: ['json_segments'],
  },
  project: {
    table: 'projects',
    columns: columnsOf(projectColumns).filter((c) => c !== 'updated_at'),
    event: 'project:changed',
    idKey: 'projectId',
  },
  saved_view: {
    table: 'saved_views',
    columns: columnsOf(savedViewColumns).filter((c) => c !== 'updated_at'),
    event: 'view:changed',
    idKey: 'viewId',
  },
  workspace: {
    table: 'workspaces',
    columns: ['id', 'name', 'slug', 'icon', 'color', 'description', 'settings', 'sort_order', 'created_at'],
    event: 'space:changed',
    idKey: 'spaceId',
  },
};
