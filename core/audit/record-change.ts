import type { Clock, Db, DomainEvent, EventBus, Ids } from '../ports';
import { redactSecrets } from '../secrets/redact';

export interface Change {
  actor: string;
  /** created, updated, deleted, status_changed, … (spec 01 Audit record). */
  action: string;
  entityType: string;
  entityId: string;
  projectId?: string | null;
  taskId?: string | null;
  oldValue?: unknown;
  newValue?: unknown;
  /** Published on the event bus in the same transaction as the audit row. */
  event?: DomainEvent;
}

/**
 * The one way a mutation leaves its traces, inside the mutation's own transaction:
 * 1. an audit row (who, what, before and after), secret-keyed values redacted: the trail is a copy
 *    that travels (history, exports, webhooks), unlike the entity;
 * 2. a per-entity state snapshot of the entity as it now stands (or stood, when deleted), whole,
 *    so that a revert restores real values (its readers redact it on the way out);
 * 3. the change event on the bus (the bus redacts every payload it writes).
 */
export async function recordChange(deps: { clock: Clock; ids: Ids; events: EventBus }, tx: Db, change: Change): Promise<void> {
  const at = deps.clock.now();
  const state = change.newValue ?? change.oldValue;
  // Both rows travel with the COMMIT (Db.writeAtCommit): no use case reads its own audit row or
  // snapshot back, and every mutation of the server passes here, so this saves each a round trip.
  await tx.writeAtCommit(
    `WITH audit AS (
       INSERT INTO audit_log (timestamp, actor, action, entity_type, entity_id, project_id, task_id, old_value, new_value)
       VALUES ($1::timestamptz, $2, $3, $4, $5, $6::uuid, $7::uuid, $8::jsonb, $9::jsonb))
     INSERT INTO entity_snapshots (id, entity_type, entity_id, state, reason, actor, created_at)
     SELECT $10::uuid, $4, $5, $11::jsonb, $3, $2, $1::timestamptz WHERE $11::jsonb IS NOT NULL`,
    [
      at.toISOString(),
      change.actor,
      change.action,
      change.entityType,
      change.entityId,
      change.projectId ?? null,
      change.taskId ?? null,
      auditJson(change.oldValue),
      auditJson(change.newValue),
      deps.ids.uuid(),
      state === undefined || state === null ? null : JSON.stringify(state),
    ],
  );
  if (change.event) await deps.events.publish(tx, change.event);
}

/** An audit value as stored: JSON text with secret-keyed values redacted (spec 02 secrets policy). */
export function auditJson(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(redactSecrets(value));
}

/**
 * recordChange for many changes of one transaction (a bulk assignment): the same traces (audit
 * values redacted, state snapshots whole), written with one INSERT for the audit rows and one for
 * the state snapshots (with the COMMIT, as recordChange's), then each change's event.
 */
export async function recordChanges(deps: { clock: Clock; ids: Ids; events: EventBus }, tx: Db, changes: readonly Change[]): Promise<void> {
  if (changes.length === 0) return;
  const at = deps.clock.now();
  const rows = changes.map((c) => ({
    actor: c.actor,
    action: c.action,
    entity_type: c.entityType,
    entity_id: c.entityId,
    project_id: c.projectId ?? null,
    task_id: c.taskId ?? null,
    old_value: c.oldValue === undefined || c.oldValue === null ? null : redactSecrets(c.oldValue),
    new_value: c.newValue === undefined || c.newValue === null ? null : redactSecrets(c.newValue),
    snapshot_id: deps.ids.uuid(),
    state: c.newValue ?? c.oldValue ?? null,
  }));
  await tx.writeAtCommit(
    `WITH x AS (SELECT * FROM jsonb_to_recordset($2::jsonb) AS x(actor text, action text, entity_type text, entity_id text, project_id uuid,
                  task_id uuid, old_value jsonb, new_value jsonb, snapshot_id uuid, state jsonb)),
          audit AS (
            INSERT INTO audit_log (timestamp, actor, action, entity_type, entity_id, project_id, task_id, old_value, new_value)
            SELECT $1::timestamptz, actor, action, entity_type, entity_id, project_id, task_id, nullif(old_value, 'null'), nullif(new_value, 'null') FROM x)
     INSERT INTO entity_snapshots (id, entity_type, entity_id, state, reason, actor, created_at)
     SELECT snapshot_id, entity_type, entity_id, state, action, actor, $1::timestamptz FROM x WHERE state IS NOT NULL AND state <> 'null'`,
    [at.toISOString(), JSON.stringify(rows)],
  );
  for (const change of changes) if (change.event) await deps.events.publish(tx, change.event);
}
