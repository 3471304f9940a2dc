import * as z from 'zod';
import { auditColumns, type AuditRecord } from '../audit/audit-record';
import { auditWhere } from '../audit/list-audit';
import { NotFoundError, ValidationError } from '../errors';
import type { Db, Deps } from '../ports';
import { queryInt, parseQuery } from '../query-params';
import { redactSecrets } from '../secrets/redact';
import { requireDb } from '../storage';
import { timestampSchema } from '../tasks/task';
import { parseId } from '../validation';
import { snapshotColumns, type EntitySnapshot } from './entity-snapshots';

const text = z.string().min(1).max(200);

export const historyQuerySchema = z.strictObject({
  limit: queryInt(1, 100).default(50),
  actor: text.optional(),
  action: text.optional(),
  entity_type: text.optional(),
});

/** GET /api/history: audit entries of every entity, newest first, with the total that match. */
export async function listHistory(deps: Pick<Deps, 'storage'>, query: unknown): Promise<{ entries: AuditRecord[]; total: number }> {
  const { limit, ...filter } = parseQuery(historyQuerySchema, query);
  const db = requireDb(deps.storage);
  const { where, params } = auditWhere(filter);
  const [entries, total] = await Promise.all([
    db.query<AuditRecord>(`SELECT ${auditColumns} FROM audit_log ${where} ORDER BY timestamp DESC, id DESC LIMIT ${limit}`, params),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM audit_log ${where}`, params),
  ]);
  return { entries: entries.rows, total: total.rows[0]?.n ?? 0 };
}

export const taskHistoryQuerySchema = z.strictObject({ limit: queryInt(1, 200).default(50) });

async function assertTaskKnown(db: Db, taskId: string): Promise<void> {
  const { rowCount } = await db.query(
    `SELECT 1 FROM tasks WHERE id = $1 UNION ALL SELECT 1 FROM entity_snapshots WHERE entity_type = 'task' AND entity_id = $2 LIMIT 1`,
    [taskId, taskId],
  );
  if (!rowCount) throw new NotFoundError(`task ${taskId} not found`);
}

/** GET /api/history/:taskId: the task's audit entries, newest first; 404 for a task never seen. */
export async function listTaskHistory(deps: Pick<Deps, 'storage'>, rawId: unknown, query: unknown) {
  const taskId = parseId(rawId, 'taskId');
  const { limit } = parseQuery(taskHistoryQuerySchema, query);
  const db = requireDb(deps.storage);
  await assertTaskKnown(db, taskId);
  const [entries, total] = await Promise.all([
    db.query<AuditRecord>(`SELECT ${auditColumns} FROM audit_log WHERE task_id = $1 ORDER BY timestamp DESC, id DESC LIMIT ${limit}`, [
      taskId,
    ]),
    db.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_log WHERE task_id = $1', [taskId]),
  ]);
  return { taskId, entries: entries.rows, total: total.rows[0]?.n ?? 0 };
}

/** The task's last state snapshot taken at or before `at`, if any. */
export const taskStateAtSql = `SELECT ${snapshotColumns} FROM entity_snapshots
  WHERE entity_type = 'task' AND entity_id = $1 AND created_at <= $2 ORDER BY created_at DESC, seq DESC LIMIT 1`;

async function stateAt(db: Db, taskId: string, at: Date): Promise<EntitySnapshot | undefined> {
  return (await db.query<EntitySnapshot>(taskStateAtSql, [taskId, at])).rows[0];
}

export const snapshotAtQuerySchema = z.strictObject({ at: timestampSchema });

/**
 * GET /api/history/:taskId/snapshot?at=: the task as it stood at `at`, from the last state
 * snapshot taken at or before it. `exact` says a snapshot was taken at that very instant.
 * 404 when the task had no recorded state yet.
 */
export async function taskSnapshotAt(deps: Pick<Deps, 'storage'>, rawId: unknown, query: unknown) {
  const taskId = parseId(rawId, 'taskId');
  const { at } = parseQuery(snapshotAtQuerySchema, query);
  const db = requireDb(deps.storage);
  const found = await stateAt(db, taskId, at);
  if (!found) {
    await assertTaskKnown(db, taskId);
    throw new NotFoundError(`task ${taskId} has no recorded state at or before ${at.toISOString()}`);
  }
  return {
    snapshot: redactSecrets(found.state),
    exact: found.created_at.getTime() === at.getTime(),
    at,
    snapshot_id: found.id,
    taken_at: found.created_at,
    reason: found.reason,
  };
}

export const diffQuerySchema = z.strictObject({ from: timestampSchema, to: timestampSchema });

/** Top-level fields whose values differ, by JSON equality; a field absent on one side is null there. */
export function diffStates(from: Record<string, unknown> | null, to: Record<string, unknown> | null) {
  const fields = [...new Set([...Object.keys(from ?? {}), ...Object.keys(to ?? {})])].sort();
  return fields
    .map((field) => ({ field, from: from?.[field] ?? null, to: to?.[field] ?? null }))
    .filter((c) => JSON.stringify(c.from) !== JSON.stringify(c.to));
}

/**
 * GET /api/history/:taskId/diff?from=&to=: field-by-field changes between the task's states at
 * the two instants (a side before the task existed counts as no fields). from must not be after to.
 */
export async function taskDiff(deps: Pick<Deps, 'storage'>, rawId: unknown, query: unknown) {
  const taskId = parseId(rawId, 'taskId');
  const { from, to } = parseQuery(diffQuerySchema, query);
  if (from > to) throw new ValidationError('from must not be after to', [{ path: 'from', message: 'after to' }]);
  const db = requireDb(deps.storage);
  await assertTaskKnown(db, taskId);
  const [before, after] = await Promise.all([stateAt(db, taskId, from), stateAt(db, taskId, to)]);
  const changes = diffStates(before?.state ?? null, after?.state ?? null).map((c) => ({
    field: c.field,
    from: redactSecrets({ [c.field]: c.from })[c.field],
    to: redactSecrets({ [c.field]: c.to })[c.field],
  }));
  return { taskId, changes, from, to };
}
