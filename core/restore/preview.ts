import * as z from 'zod';
import { runStatusGroups } from '../workflows/run-status';
import { SchemaTooNewError, StorageUnavailableError, NoDatabaseError } from '../errors';
import type { Db, Deps } from '../ports';
import { requireDatabase } from '../snapshots/create-snapshot';
import { describeTable, quoteIdent, useUtc, type LiveTable } from '../snapshots/live-table';
import { isSecretKey, REDACTED, redactSecrets } from '../secrets/redact';
import { canonicalJson } from '../snapshots/canonical-json';
import type { ByteSource } from '../ports';
import { snapshotTables } from '../snapshots/tables';
import { previewRequestSchema, readRestoreRequest, settingsSectionDropped, tableRows, type ArtifactLayout } from './artifact';
import { classifyBatch, pkOf } from './table-diff';
import { describeClashes, findUniqueClashes } from './unique-clashes';

export const RESTORE_BATCH_ROWS = 500;

export interface RestoreWarning {
  code: 'target_newer' | 'active_runs' | 'settings_section_dropped' | 'unique_clash';
  message: string;
}

/**
 * One table of the preview. `sample` holds up to PREVIEW_SAMPLE_ROWS added rows (as the artifact
 * holds them) and as many changed ones (updated or conflicting: each differing column with its live
 * value and the snapshot's), for a person to see what the rows are (the console's preview).
 * Secret-keyed values are redacted on both sides (live rows hold real secrets) and every value is cut
 * to PREVIEW_SAMPLE_VALUE_CHARS characters of its JSON text, so the sample stays small whatever the rows hold.
 */
export const tablePreviewSchema = z.object({
  added: z.number().int(),
  updated: z.number().int(),
  conflicts: z.number().int(),
  unchanged: z.number().int(),
  /** Live rows the artifact does not hold: what replace mode would delete. */
  absent: z.number().int(),
  added_pks: z.array(z.unknown()),
  conflict_pks: z.array(z.unknown()),
  sample: z.object({
    added: z.array(z.object({ key: z.unknown(), row: z.record(z.string(), z.unknown()) })),
    changed: z.array(
      z.object({ key: z.unknown(), columns: z.array(z.object({ column: z.string(), live: z.unknown(), snapshot: z.unknown() })) }),
    ),
  }),
});
export type TablePreview = z.infer<typeof tablePreviewSchema>;
type RowSample = TablePreview['sample'];

export const PREVIEW_SAMPLE_ROWS = 3;
export const PREVIEW_SAMPLE_VALUE_CHARS = 200;

/** A column's value as the sample shows it: redacted, its JSON text cut to PREVIEW_SAMPLE_VALUE_CHARS. */
function sampleValue(column: string, value: unknown): unknown {
  if (isSecretKey(column)) return REDACTED;
  const redacted = redactSecrets(value) ?? null;
  const text = JSON.stringify(redacted);
  return text.length <= PREVIEW_SAMPLE_VALUE_CHARS ? redacted : `${text.slice(0, PREVIEW_SAMPLE_VALUE_CHARS)}…`;
}

function sampleRow(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).map(([c, v]) => [c, sampleValue(c, v)]));
}

/** The columns of a changed row whose values differ, compared redacted as the diff's hash compares them. */
function sampleChange(live: LiveTable, row: Record<string, unknown>, current: Record<string, unknown>): RowSample['changed'][number] {
  const known = new Set(live.columns);
  const shown = (c: string, v: unknown) => canonicalJson(isSecretKey(c) ? REDACTED : (redactSecrets(v) ?? null));
  const columns = Object.keys(row)
    .filter((c) => known.has(c) && shown(c, row[c]) !== shown(c, current[c]))
    .map((c) => ({ column: c, live: sampleValue(c, current[c]), snapshot: sampleValue(c, row[c]) }));
  return { key: pkOf(live, row), columns };
}

/**
 * Schema compatibility (spec 02 Versioning): migrations the artifact names and this database lacks
 * refuse the restore (409 schema_too_new); migrations only this database has give target_newer.
 */
export async function checkCompatibility(db: Db, layout: ArtifactLayout): Promise<RestoreWarning[]> {
  const { rows } = await db.query<{ name: string }>('SELECT name FROM schema_migrations');
  const live = new Set(rows.map((r) => r.name));
  const named = new Set(layout.manifest.schema_version.migrations_applied);
  const missing = [...named].filter((n) => !live.has(n)).sort();
  if (missing.length) throw new SchemaTooNewError(missing);
  const extra = [...live].filter((n) => !named.has(n)).sort();
  return extra.length
    ? [
        {
          code: 'target_newer',
          message: `this database has migrations the artifact predates (${extra.join(', ')}); later migrations are assumed additive`,
        },
      ]
    : [];
}

export async function restoreWarnings(db: Db, layout: ArtifactLayout): Promise<RestoreWarning[]> {
  const warnings = await checkCompatibility(db, layout);
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM workflow_runs WHERE status = ANY($1)', [
    runStatusGroups.underway,
  ]);
  if (rows[0]!.n > 0) {
    warnings.push({
      code: 'active_runs',
      message: `${rows[0]!.n} workflow run(s) are in flight; the dispatcher or agents may write while the restore runs`,
    });
  }
  if (settingsSectionDropped(layout.settings)) {
    warnings.push({ code: 'settings_section_dropped', message: 'the settings section holds a password-type key, so it is dropped whole' });
  }
  return warnings;
}

/** Tables of the artifact, in write (dependency) order. */
export function artifactTables(layout: ArtifactLayout) {
  return snapshotTables.filter((t) => layout.tables.has(t.name));
}

/**
 * POST /api/restore/preview, in spec 02's validation order: body cap (413), envelope and manifest
 * structure (400 invalid_manifest), content_hash (400 artifact_corrupt), database (503), schema
 * compatibility (409 schema_too_new), then the per-table diff in one read-only transaction
 * (one consistent view). Nothing is written.
 */
export async function previewRestore(deps: Deps, body: ByteSource, maxBytes: number) {
  const { layout } = await readRestoreRequest(deps, body, maxBytes, previewRequestSchema);
  try {
    const db = requireDatabase(deps);
    return await db.transaction(async (tx) => {
      await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      await useUtc(tx);
      const warnings = await restoreWarnings(tx, layout);
      const clashes = await findUniqueClashes(tx, layout, artifactTables(layout), RESTORE_BATCH_ROWS);
      if (clashes.length) {
        warnings.push({
          code: 'unique_clash',
          message: `merge would be refused: live rows with other ids hold the unique values of ${describeClashes(clashes)}; replace mode removes those rows first`,
        });
      }
      const tables: Record<string, TablePreview> = {};
      const totals = { added: 0, updated: 0, conflicts: 0, unchanged: 0 };
      for (const table of artifactTables(layout)) {
        const live = await describeTable(tx, table);
        const t: TablePreview = {
          added: 0,
          updated: 0,
          conflicts: 0,
          unchanged: 0,
          absent: 0,
          added_pks: [],
          conflict_pks: [],
          sample: { added: [], changed: [] },
        };
        for await (const batch of tableRows(layout, table.name, RESTORE_BATCH_ROWS)) {
          for (const c of await classifyBatch(tx, live, batch, layout.manifest.created_at)) {
            if (c.kind === 'added') {
              t.added++;
              t.added_pks.push(pkOf(live, c.row));
              if (t.sample.added.length < PREVIEW_SAMPLE_ROWS) t.sample.added.push({ key: pkOf(live, c.row), row: sampleRow(c.row) });
            } else if (c.kind === 'conflict') {
              t.conflicts++;
              t.conflict_pks.push(pkOf(live, c.row));
            } else if (c.kind === 'updated') t.updated++;
            else t.unchanged++;
            if ((c.kind === 'conflict' || c.kind === 'updated') && t.sample.changed.length < PREVIEW_SAMPLE_ROWS)
              t.sample.changed.push(sampleChange(live, c.row, c.live!));
          }
        }
        const { rows } = await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${quoteIdent(table.name)}`);
        t.absent = rows[0]!.n - (t.updated + t.conflicts + t.unchanged);
        tables[table.name] = t;
        totals.added += t.added;
        totals.updated += t.updated;
        totals.conflicts += t.conflicts;
        totals.unchanged += t.unchanged;
      }
      const dropped = settingsSectionDropped(layout.settings);
      return {
        schema_compat: 'ok' as const,
        warnings: warnings.map((w) => w.code),
        warning_details: warnings,
        tables,
        totals,
        settings: { keys: dropped ? [] : Object.keys(layout.settings).sort(), dropped },
        snapshot_id: layout.manifest.snapshot_id,
        created_at: layout.manifest.created_at,
        timestamp: deps.clock.now().toISOString(),
      };
    });
  } catch (err) {
    if (err instanceof StorageUnavailableError) throw new NoDatabaseError(err.message);
    throw err;
  } finally {
    await layout.source.close();
  }
}
