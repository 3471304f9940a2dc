import * as z from 'zod';
import { recordChange } from '../audit/record-change';
import { OPERATOR_ACTOR } from '../actors';
import { NotFoundError, ValidationError } from '../errors';
import type { Db, Deps } from '../ports';
import { queryInt, parseQuery } from '../query-params';
import { redactSecrets } from '../secrets/redact';
import { sqlTextArray } from '../sql-text';
import { requireDb } from '../storage';
import { assertNoDependencyCycle, assertNoParentCycle, lockTaskGraph } from '../tasks/graph';
import { parseId, parseInput } from '../validation';
import {
  entityIdSchema,
  entityTypeSchema,
  insertSnapshot,
  presentSnapshot,
  revertableEntities,
  snapshotColumns,
  type EntitySnapshot,
} from './entity-snapshots';

export const stateSnapshotsQuerySchema = z.strictObject({
  limit: queryInt(1, 200).default(50),
  entity_type: entityTypeSchema.optional(),
});

/** GET /api/state-snapshots?limit=&entity_type=: per-entity state snapshots, newest first. */
export async function listStateSnapshots(deps: Pick<Deps, 'storage'>, query: unknown) {
  const { limit, entity_type } = parseQuery(stateSnapshotsQuerySchema, query);
  const db = requireDb(deps.storage);
  const [rows, total] = await Promise.all([
    db.query<EntitySnapshot>(
      `SELECT ${snapshotColumns} FROM entity_snapshots WHERE ($1::text IS NULL OR entity_type = $1)
        ORDER BY created_at DESC, seq DESC LIMIT ${limit}`,
      [entity_type ?? null],
    ),
    db.query<{ n: number }>('SELECT count(*)::int AS n FROM entity_snapshots WHERE ($1::text IS NULL OR entity_type = $1)', [
      entity_type ?? null,
    ]),
  ]);
  return { snapshots: rows.rows.map(presentSnapshot), total: total.rows[0]?.n ?? 0 };
}

export const entitySnapshotsQuerySchema = z.strictObject({ limit: queryInt(1, 200).default(50) });

/** GET /api/snapshots/:entityType/:entityId?limit=: one entity's state snapshots, newest first. */
export async function listEntitySnapshots(deps: Pick<Deps, 'storage'>, rawType: unknown, rawId: unknown, query: unknown) {
  const entityType = parseInput(entityTypeSchema, rawType, 'entityType');
  const entityId = parseInput(entityIdSchema, rawId, 'entityId');
  const { limit } = parseQuery(entitySnapshotsQuerySchema, query);
  const db = requireDb(deps.storage);
  const [rows, total] = await Promise.all([
    db.query<EntitySnapshot>(
      `SELECT ${snapshotColumns} FROM entity_snapshots WHERE entity_type = $1 AND entity_id = $2
        ORDER BY created_at DESC, seq DESC LIMIT ${limit}`,
      [entityType, entityId],
    ),
    db.query<{ n: number }>('SELECT count(*)::int AS n FROM entity_snapshots WHERE entity_type = $1 AND entity_id = $2', [
      entityType,
      entityId,
    ]),
  ]);
  return { snapshots: rows.rows.map(presentSnapshot), total: total.rows[0]?.n ?? 0 };
}

async function findSnapshot(db: Db, id: string): Promise<EntitySnapshot> {
  const { rows } = await db.query<EntitySnapshot>(`SELECT ${snapshotColumns} FROM entity_snapshots WHERE id = $1`, [id]);
  if (!rows[0]) throw new NotFoundError(`state snapshot ${id} not found`);
  return rows[0];
}

/** The state of the row aliased `t` of a revertable entity's table: its columns but the generated ones. */
function stateOfRow(target: { generated?: readonly string[] }): string {
  return target.generated?.length ? `to_jsonb(t) - ${sqlTextArray(target.generated)}` : 'to_jsonb(t)';
}

async function currentState(db: Db, snapshot: EntitySnapshot, lock = false): Promise<Record<string, unknown> | null> {
  const target = revertableEntities[snapshot.entity_type];
  if (!target) return null;
  const { rows } = await db.query<{ state: Record<string, unknown> }>(
    `SELECT ${stateOfRow(target)} AS state FROM ${target.table} t WHERE id::text = $1${lock ? ' FOR UPDATE' : ''}`,
    [snapshot.entity_id],
  );
  return rows[0]?.state ?? null;
}

/** POST /api/snapshots/:snapshotId/preview-revert: what a revert would change; reads only. */
export async function previewRevert(deps: Pick<Deps, 'storage'>, rawId: unknown) {
  const id = parseId(rawId, 'snapshotId');
  const db = requireDb(deps.storage);
  const snapshot = await findSnapshot(db, id);
  const current = await currentState(db, snapshot);
  const { state, ...meta } = presentSnapshot(snapshot);
  return {
    snapshot: { ...meta, revertable: snapshot.entity_type in revertableEntities },
    currentState: current && redactSecrets(current),
    snapshotState: state,
  };
}

export const revertBodySchema = z.strictObject({ actor: z.string().trim().min(1).max(200).optional() });

/**
 * POST /api/snapshots/:snapshotId/revert {actor?}: puts the entity back as the snapshot holds it
 * (re-creating it when it was deleted). Records the state it replaces as a `pre-revert`
 * snapshot, then the change itself through recordChange (audit `reverted`, a `reverted`
 * snapshot, the entity's change event), all in one transaction.
 */
export async function revertSnapshot(deps: Pick<Deps, 'storage' | 'clock' | 'ids' | 'events'>, rawId: unknown, body: unknown) {
  const id = parseId(rawId, 'snapshotId');
  const actor = parseInput(revertBodySchema, body ?? {}, 'revert').actor ?? OPERATOR_ACTOR;
  const db = requireDb(deps.storage);
  return db.transaction(async (tx) => {
    const snapshot = await findSnapshot(tx, id);
    const target = revertableEntities[snapshot.entity_type];
    if (!target) {
      throw new ValidationError(
        `entity type ${snapshot.entity_type} cannot be reverted; revertable: ${Object.keys(revertableEntities).join(', ')}`,
      );
    }
    if (snapshot.entity_type === 'task') {
      await lockTaskGraph(tx);
      const deps_ = (snapshot.state.dependency_ids as string[] | undefined) ?? [];
      await assertNoDependencyCycle(tx, snapshot.entity_id, deps_);
      if (snapshot.state.parent_task_id) await assertNoParentCycle(tx, snapshot.entity_id, snapshot.state.parent_task_id as string);
    }
    const before = await currentState(tx, snapshot, true);
    const now = deps.clock.now();
    if (before) {
      await insertSnapshot(tx, {
        id: deps.ids.uuid(),
        entityType: snapshot.entity_type,
        entityId: snapshot.entity_id,
        state: before,
        reason: 'pre-revert',
        actor,
        at: now,
      });
    }
    const cols = target.columns;
    const { rows } = await tx.query<{ state: Record<string, unknown> }>(
      `INSERT INTO ${target.table} AS t (${cols.join(', ')}, updated_at)
         SELECT ${cols.join(', ')}, $2 FROM jsonb_populate_record(NULL::${target.table}, $1::jsonb)
       ON CONFLICT (id) DO UPDATE SET ${[...cols.filter((c) => c !== 'id'), 'updated_at'].map((c) => `${c} = EXCLUDED.${c}`).join(', ')}
       RETURNING ${stateOfRow(target)} AS state`,
      [JSON.stringify({ ...snapshot.state, id: snapshot.entity_id }), now],
    );
    const after = rows[0]!.state;
    await recordChange(deps, tx, {
      actor,
      action: 'reverted',
      entityType: snapshot.entity_type,
      entityId: snapshot.entity_id,
      projectId: (after.project_id as string | undefined) ?? (snapshot.entity_type === 'project' ? snapshot.entity_id : null),
      taskId: snapshot.entity_type === 'task' ? snapshot.entity_id : null,
      oldValue: before,
      newValue: after,
      event: { name: target.event, payload: { action: 'reverted', [target.idKey]: snapshot.entity_id }, channel: 'events' },
    });
    return { reverted: true as const, entityType: snapshot.entity_type, entityId: snapshot.entity_id, snapshotId: id };
  });
}
