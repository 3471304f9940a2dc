import * as z from 'zod';
import { OPERATOR_ACTOR } from '../actors';
import { auditColumns, type AuditRecord } from '../audit/audit-record';
import { foldAuditSearch } from '../audit/list-audit';
import { recordChange } from '../audit/record-change';
import { ValidationError } from '../errors';
import type { Db, Deps } from '../ports';
import { projectColumns, projectStatusSchema } from '../projects/project';
import { REDACTED, redactSecrets, withStoredSecrets } from '../secrets/redact';
import { settingByKey, snapshotSettingKeys } from '../settings/catalog';
import { requireDb } from '../storage';
import { assertAcyclicFrom } from '../tasks/graph';
import { boardColumns } from '../tasks/statuses';
import { taskColumns, taskPrioritySchema, taskStatusSchema, taskStoredColumns } from '../tasks/task';
import { jsonObjectSchema, parseInput, uuidSchema } from '../validation';

export const LEGACY_EXPORT_VERSION = 1;
export const LEGACY_EXPORT_AUDIT_ROWS = 500;

const workflowColumns = 'id, name, description, states, is_default, metadata, created_at, updated_at';

/**
 * GET /api/export: projects, tasks (soft-deleted too: this is a backup), workflows, the newest
 * 500 audit rows and the operator settings. Secrets policy (spec 02): settings come only from
 * the catalog's configuration keys, never a password-type one, and every structured cell passes
 * through redactSecrets.
 */
export async function exportLegacy(deps: Pick<Deps, 'storage' | 'clock'>) {
  const db = requireDb(deps.storage);
  const [projects, tasks, workflows, auditLog, settings] = await Promise.all([
    db.query(`SELECT ${projectColumns} FROM projects ORDER BY created_at, id`),
    db.query(`SELECT ${taskColumns} FROM tasks ORDER BY created_at, id`),
    db.query(`SELECT ${workflowColumns} FROM workflows ORDER BY created_at, id`),
    db.query<AuditRecord>(`SELECT ${auditColumns} FROM audit_log ORDER BY timestamp DESC, id DESC LIMIT ${LEGACY_EXPORT_AUDIT_ROWS}`),
    db.query<{ key: string; value: unknown }>('SELECT key, value FROM settings WHERE key = ANY($1::text[]) ORDER BY key', [
      snapshotSettingKeys(),
    ]),
  ]);
  return {
    version: LEGACY_EXPORT_VERSION,
    exportedAt: deps.clock.now(),
    projects: redactSecrets(projects.rows),
    tasks: redactSecrets(tasks.rows),
    workflows: redactSecrets(workflows.rows),
    auditLog: redactSecrets(auditLog.rows),
    settings: redactSecrets(Object.fromEntries(settings.rows.map((s) => [s.key, s.value]))),
  };
}

const when = z.union([z.iso.datetime({ offset: true }), z.iso.date()], { message: 'must be an ISO 8601 timestamp' });
const nullableWhen = when.nullable().default(null);

/** Import rows: the exported shape; unknown columns are ignored, missing optional ones take defaults. */
const projectRow = z.object({
  id: uuidSchema,
  name: z.string().trim().min(1).max(200),
  description: z.string().max(10_000).default(''),
  status: projectStatusSchema.default('active'),
  tags: z.array(z.string().max(100)).max(100).default([]),
  default_workflow_id: uuidSchema.nullable().default(null),
  metadata: jsonObjectSchema.default({}),
  qmd_project_namespace: z.string().max(200).nullable().default(null),
  created_at: when.optional(),
  updated_at: when.optional(),
});

const taskRow = z.object({
  id: uuidSchema,
  project_id: uuidSchema,
  title: z.string().trim().min(1).max(500),
  description: z.string().max(100_000).default(''),
  status: taskStatusSchema.default('backlog'),
  priority: taskPrioritySchema.default('medium'),
  owner: z.string().max(200).nullable().default(null),
  due_date: nullableWhen,
  start_date: nullableWhen,
  estimated_effort: z.number().finite().min(0).nullable().default(null),
  actual_effort: z.number().finite().min(0).nullable().default(null),
  parent_task_id: uuidSchema.nullable().default(null),
  dependency_ids: z.array(uuidSchema).max(500).default([]),
  labels: z.array(z.string().max(100)).max(100).default([]),
  created_at: when.optional(),
  updated_at: when.optional(),
  completed_at: nullableWhen,
  recurrence_rule: z.string().max(500).nullable().default(null),
  metadata: jsonObjectSchema.default({}),
  deleted_at: nullableWhen,
  archived_at: nullableWhen,
  locked_at: nullableWhen,
  locked_by: z.string().max(200).nullable().default(null),
  retry_count: z.number().int().min(0).default(0),
  status_updated_at: nullableWhen,
  active_workflow_run_id: z.string().max(200).nullable().default(null),
});

const workflowRow = z.object({
  id: uuidSchema,
  name: z.string().trim().min(1).max(200),
  description: z.string().max(10_000).default(''),
  states: z
    .array(z.unknown())
    .max(100)
    .default([...boardColumns]),
  is_default: z.boolean().default(false),
  metadata: jsonObjectSchema.default({}),
  created_at: when.optional(),
  updated_at: when.optional(),
});

const auditRow = z.object({
  timestamp: when,
  actor: z.string().min(1).max(200),
  action: z.string().min(1).max(200),
  entity_type: z.string().min(1).max(100),
  entity_id: z.string().max(200).nullable().default(null),
  task_id: uuidSchema.nullable().default(null),
  project_id: uuidSchema.nullable().default(null),
  old_value: z.unknown().optional(),
  new_value: z.unknown().optional(),
});

const MAX_ROWS = 200_000;
const legacyDocument = {
  version: z.union([z.number(), z.string().max(20)]),
  projects: z.array(projectRow).max(MAX_ROWS).optional(),
  tasks: z.array(taskRow).max(MAX_ROWS).optional(),
  workflows: z.array(workflowRow).max(MAX_ROWS).optional(),
  auditLog: z.array(auditRow).max(MAX_ROWS).optional(),
  settings: jsonObjectSchema.optional(),
};
// exportedAt and other top-level keys of an export are accepted and ignored
export const importPreviewSchema = z.object(legacyDocument);
export const importSchema = z.object({
  ...legacyDocument,
  mode: z.enum(['merge', 'replace'], { message: 'must be merge or replace' }).default('merge'),
});

/** POST /api/import/preview: counts only; validates every row's shape (references and cycles need the database: import checks them). */
export async function previewImport(body: unknown) {
  const doc = parseInput(importPreviewSchema, body ?? {}, 'import');
  return {
    version: doc.version,
    projects: doc.projects?.length ?? 0,
    tasks: doc.tasks?.length ?? 0,
    workflows: doc.workflows?.length ?? 0,
    auditLog: doc.auditLog?.length ?? 0,
    hasSettings: !!doc.settings && Object.keys(doc.settings).length > 0,
    projectNames: (doc.projects ?? []).map((p) => p.name),
  };
}

async function assertReferences(db: Db, ids: string[], table: string, field: string): Promise<void> {
  if (!ids.length) return;
  const { rows } = await db.query<{ id: string }>(`SELECT unnest($1::uuid[]) AS id EXCEPT SELECT id FROM ${table}`, [ids]);
  if (rows.length) {
    const missing = rows.map((r) => r.id);
    throw new ValidationError(`${field}: no such row ${missing.slice(0, 20).join(', ')}`, [
      { path: field, message: `unknown: ${missing.join(', ')}` },
    ]);
  }
}

/** Upserts rows into `table` by id, set-based through jsonb_populate_recordset. */
async function upsertRows(tx: Db, table: string, columns: string[], rows: unknown[], now: Date): Promise<void> {
  if (!rows.length) return;
  const stamped = rows.map((r) => ({ created_at: now, updated_at: now, ...(r as object) }));
  await tx.query(
    `INSERT INTO ${table} (${columns.join(', ')})
       SELECT ${columns.join(', ')} FROM jsonb_populate_recordset(NULL::${table}, $1::jsonb)
     ON CONFLICT (id) DO UPDATE SET ${columns
       .filter((c) => c !== 'id')
       .map((c) => `${c} = EXCLUDED.${c}`)
       .join(', ')}`,
    [JSON.stringify(stamped)],
  );
}

/**
 * Settings of an import (spec 02 settings rule): a section holding any password-type key is
 * dropped whole with a warning; keys outside the configuration catalog are skipped with a
 * warning; each kept value must satisfy its catalog schema (400 otherwise).
 */
function importableSettings(settings: Record<string, unknown> | undefined, warnings: string[]): Array<[string, unknown]> {
  if (!settings) return [];
  const keys = Object.keys(settings);
  const secret = keys.filter((k) => settingByKey.get(k)?.type === 'password');
  if (secret.length) {
    warnings.push(`settings section dropped: it holds password-type keys (${secret.join(', ')})`);
    return [];
  }
  const allowed = new Set(snapshotSettingKeys());
  const skipped = keys.filter((k) => !allowed.has(k));
  if (skipped.length) warnings.push(`settings skipped (not operator preferences): ${skipped.join(', ')}`);
  return keys
    .filter((k) => allowed.has(k))
    .map((k) => [k, parseInput(settingByKey.get(k)!.schema, settings[k], `settings.${k}`)] as [string, unknown]);
}

/**
 * POST /api/import: merge (upsert by id) or replace (the tables of the sections given are
 * emptied first), all in one transaction, so any bad row leaves the database as it was.
 * Every row is validated before anything is written; references (task -> project, parent,
 * dependencies; project -> workflow) must resolve within the import or the database, and the
 * imported tasks may close no dependency or subtask cycle (400 naming it, nothing written).
 * Imported audit rows are appended (an identical row already present is skipped); the audit
 * log is never emptied. The import itself is audited once, with its counts.
 */
export async function importLegacy(deps: Pick<Deps, 'storage' | 'clock' | 'ids' | 'events'>, body: unknown, actor = OPERATOR_ACTOR) {
  const doc = parseInput(importSchema, body ?? {}, 'import');
  const warnings: string[] = [];
  const settings = importableSettings(doc.settings, warnings);
  const db = requireDb(deps.storage);
  const now = deps.clock.now();
  const imported = {
    projects: doc.projects?.length ?? 0,
    tasks: doc.tasks?.length ?? 0,
    workflows: doc.workflows?.length ?? 0,
    auditLog: 0,
  };
  const secretsDropped: string[] = [];
  await db.transaction(async (tx) => {
    // read before a replace empties the tables: an exported "[REDACTED]" must not erase the stored secret
    const workflows = await keepStoredSecrets(tx, 'workflows', doc.workflows ?? [], secretsDropped);
    const projects = await keepStoredSecrets(tx, 'projects', doc.projects ?? [], secretsDropped);
    const tasks = await keepStoredSecrets(tx, 'tasks', doc.tasks ?? [], secretsDropped);
    if (doc.mode === 'replace') {
      if (doc.tasks) await tx.query('DELETE FROM tasks');
      if (doc.projects) await tx.query('DELETE FROM projects');
      if (doc.workflows) await tx.query('DELETE FROM workflows');
    }
    const workflowCols = workflowColumns.split(', ');
    await upsertRows(tx, 'workflows', workflowCols, workflows, now);
    await assertReferences(
      tx,
      [...new Set(projects.flatMap((p) => (p.default_workflow_id ? [p.default_workflow_id] : [])))],
      'workflows',
      'projects.default_workflow_id',
    );
    await upsertRows(
      tx,
      'projects',
      projectColumns.split(', ').filter((c) => c !== 'workspace_id'),
      projects,
      now,
    );
    await assertReferences(tx, [...new Set(tasks.map((t) => t.project_id))], 'projects', 'tasks.project_id');
    const taskIds = new Set(tasks.map((t) => t.id));
    const outside = [...new Set(tasks.flatMap((t) => [...(t.parent_task_id ? [t.parent_task_id] : []), ...t.dependency_ids]))].filter(
      (id) => !taskIds.has(id),
    );
    await assertReferences(tx, outside, 'tasks', 'tasks.parent_task_id/dependency_ids');
    await upsertRows(tx, 'tasks', taskStoredColumns.split(', '), tasks, now);
    await assertAcyclicFrom(tx, [...taskIds]);
    if (doc.auditLog?.length) {
      const { rowCount } = await tx.query(
        `INSERT INTO audit_log (timestamp, actor, action, entity_type, entity_id, task_id, project_id, old_value, new_value)
         SELECT r.timestamp, r.actor, r.action, r.entity_type, r.entity_id, r.task_id, r.project_id, r.old_value, r.new_value
           FROM jsonb_to_recordset($1::jsonb) AS r(timestamp timestamptz, actor text, action text, entity_type text, entity_id text,
                                                   task_id uuid, project_id uuid, old_value jsonb, new_value jsonb)
          WHERE NOT EXISTS (SELECT 1 FROM audit_log a WHERE a.timestamp = r.timestamp AND a.actor = r.actor AND a.action = r.action
                              AND a.entity_type = r.entity_type AND a.entity_id IS NOT DISTINCT FROM r.entity_id)`,
        [JSON.stringify(redactSecrets(doc.auditLog))],
      );
      imported.auditLog = rowCount;
    }
    for (const [key, value] of settings) {
      const def = settingByKey.get(key)!;
      await tx.query(
        `INSERT INTO settings (key, value, source, type, updated_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at`,
        [key, JSON.stringify(value), def.source, def.type, now],
      );
    }
    await recordChange(deps, tx, {
      actor,
      action: 'imported',
      entityType: 'legacy_import',
      entityId: deps.ids.uuid(),
      newValue: { mode: doc.mode, version: doc.version, imported, settings: settings.map(([k]) => k), secretsDropped, warnings },
      event: { name: 'import:completed', payload: { mode: doc.mode, imported }, channel: 'events' },
    });
  });
  // the imported audit log made searchable now, as a restore's is (docs/adr/0008-deferred-audit-search.md)
  await foldAuditSearch(db, Number.MAX_SAFE_INTEGER).catch(() => 0);
  return { imported, mode: doc.mode, ...(secretsDropped.length ? { secretsDropped } : {}), ...(warnings.length ? { warnings } : {}) };
}

/**
 * Rows of an import with every redaction marker resolved against the stored row of the same id:
 * the stored secret is kept, and a marker with nothing stored behind it is left out and named
 * (`<table>/<id>: <path>`) in `dropped`.
 */
async function keepStoredSecrets<T extends { id: string }>(
  tx: Db,
  table: 'workflows' | 'projects' | 'tasks',
  rows: T[],
  dropped: string[],
): Promise<T[]> {
  if (!rows.some((row) => JSON.stringify(row).includes(REDACTED))) return rows;
  const { rows: stored } = await tx.query<Record<string, unknown> & { id: string }>(
    `SELECT * FROM ${table} WHERE id::text = ANY($1::text[])`,
    [rows.map((r) => r.id)],
  );
  const byId = new Map(stored.map((r) => [String(r.id), r]));
  return rows.map((row) => {
    const resolved = withStoredSecrets(row, byId.get(row.id));
    dropped.push(...resolved.dropped.map((p) => `${table}/${row.id}: ${p}`));
    return resolved.value as T;
  });
}
