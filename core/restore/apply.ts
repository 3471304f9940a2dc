import { rebuildUsage } from '../costs/usage-rollup';
import { OPERATOR_ACTOR } from '../actors';
import { foldAuditSearch } from '../audit/list-audit';
import { recordChange } from '../audit/record-change';
import {
  ConflictError,
  DomainError,
  NoDatabaseError,
  RestoreFailedError,
  RestoreInProgressError,
  StorageUnavailableError,
  UniqueClashError,
} from '../errors';
import type { Db, Deps } from '../ports';
import { settingByKey } from '../settings/catalog';
import { requireDatabase } from '../snapshots/create-snapshot';
import { describeTable, useUtc, type LiveTable } from '../snapshots/live-table';
import type { ByteSource } from '../ports';
import { snapshotTableByName } from '../snapshots/tables';
import { applyRequestSchema, readRestoreRequest, settingsSectionDropped, tableRows, type ArtifactLayout } from './artifact';
import { artifactTables, RESTORE_BATCH_ROWS, restoreWarnings } from './preview';
import { advanceSequences, classifyBatch, keepLiveSecrets, KeySet, upsertRows } from './table-diff';
import { describeClashes, findUniqueClashes } from './unique-clashes';

export type RestoreMode = 'merge' | 'replace';

export interface TableCounts {
  upserted: number;
  deleted: number;
}

export interface RestoreSummary {
  mode: RestoreMode;
  resumed: boolean;
  tables: Record<string, TableCounts>;
  totals: TableCounts;
  settings: { applied: string[]; skipped: string[]; dropped_section: boolean };
  startedAt: string;
  completedAt: string;
}

export interface ApplyResult {
  restoreId: string;
  duplicate: boolean;
  resumed: boolean;
  warnings: string[];
  summary: RestoreSummary;
}

/**
 * Test seams, passed by the caller (never read from the environment): the batch size, and a hook
 * called after each batch is written inside a table's transaction; a hook that throws aborts that
 * table as a crash would.
 */
export interface ApplyOptions {
  batchSize?: number;
  afterBatch?: (at: { step: string; table: string; batch: number; rows: number }) => void | Promise<void>;
}

interface Checkpoint {
  restore_id: string;
  snapshot_id: string;
  mode: RestoreMode;
  completed_tables: string[];
  started_at: Date;
  completed_at: Date | null;
  last_error: string | null;
  summary: { tables?: Record<string, TableCounts> } | RestoreSummary | null;
}

/**
 * The steps of an apply, each one transaction and one checkpoint entry: in replace mode first
 * `delete:<table>` for each table in reverse dependency order (rows the artifact does not hold),
 * then for every mode `<table>` in dependency order (upserts of added, updated and conflict rows).
 */
function stepsOf(layout: ArtifactLayout, mode: RestoreMode): Array<{ step: string; table: string; kind: 'delete' | 'upsert' }> {
  const tables = artifactTables(layout).map((t) => t.name);
  const deletes = mode === 'replace' ? [...tables].reverse().map((t) => ({ step: `delete:${t}`, table: t, kind: 'delete' as const })) : [];
  return [...deletes, ...tables.map((t) => ({ step: t, table: t, kind: 'upsert' as const }))];
}

async function openCheckpoint(
  db: Db,
  restoreId: string,
  snapshotId: string,
  mode: RestoreMode,
  now: Date,
): Promise<{ checkpoint: Checkpoint; fresh: boolean }> {
  const inserted = await db.query(
    `INSERT INTO restore_checkpoints (restore_id, snapshot_id, mode, started_at, summary) VALUES ($1, $2, $3, $4, '{"tables": {}}')
     ON CONFLICT (restore_id) DO NOTHING`,
    [restoreId, snapshotId, mode, now],
  );
  const { rows } = await db.query<Checkpoint>('SELECT * FROM restore_checkpoints WHERE restore_id = $1', [restoreId]);
  const checkpoint = rows[0]!;
  if (checkpoint.snapshot_id !== snapshotId || checkpoint.mode !== mode) {
    throw new ConflictError(
      `restoreId ${restoreId} belongs to a restore of snapshot ${checkpoint.snapshot_id} in ${checkpoint.mode} mode; mint a new restoreId`,
    );
  }
  return { checkpoint, fresh: inserted.rowCount === 1 };
}

/** Writes the settings section (spec 02 settings rule): known preference keys with valid values; the rest skipped. */
async function applySettings(tx: Db, settings: Record<string, unknown>, now: Date): Promise<RestoreSummary['settings']> {
  if (settingsSectionDropped(settings)) return { applied: [], skipped: [], dropped_section: true };
  const applied: string[] = [];
  const skipped: string[] = [];
  for (const [key, value] of Object.entries(settings).sort(([a], [b]) => a.localeCompare(b))) {
    const def = settingByKey.get(key);
    if (!def || def.source !== 'config' || def.type === 'password' || !def.schema.safeParse(value).success) {
      skipped.push(key);
      continue;
    }
    await tx.query(
      `INSERT INTO settings (key, value, source, type, updated_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, source = EXCLUDED.source, type = EXCLUDED.type, updated_at = EXCLUDED.updated_at`,
      [key, JSON.stringify(value), def.source, def.type, now],
    );
    applied.push(key);
  }
  return { applied, skipped, dropped_section: false };
}

function totalsOf(tables: Record<string, TableCounts>): TableCounts {
  return Object.values(tables).reduce((sum, t) => ({ upserted: sum.upserted + t.upserted, deleted: sum.deleted + t.deleted }), {
    upserted: 0,
    deleted: 0,
  });
}

/**
 * POST /api/restore/apply (spec 02 Restore lifecycle):
 * 1. validate as preview does (413, 400 invalid_manifest, 400 artifact_corrupt, 503, 409 schema_too_new),
 *    and in merge mode refuse artifact rows that live rows' unique values would block (409 unique_clash),
 *    so a too-new or corrupt artifact writes nothing;
 * 2. open the checkpoint of restoreId: a completed one answers its stored summary with duplicate: true;
 *    a partial one resumes at its first incomplete step;
 * 3. run each remaining step in its own transaction, in batches of about 500 rows, appending the
 *    step to the checkpoint in that same transaction; each finished table emits restore-progress;
 * 4. apply (or drop) the settings section, store the summary, mark the checkpoint completed and
 *    audit the restore, in one transaction.
 * A failure in step 3 or 4 leaves earlier steps committed, records lastError and answers
 * 500 restore_failed; the same restoreId resumes.
 */
export async function applyRestore(
  deps: Deps,
  body: ByteSource,
  maxBytes: number,
  options: ApplyOptions = {},
  actor = OPERATOR_ACTOR,
): Promise<ApplyResult> {
  const { request, layout } = await readRestoreRequest(deps, body, maxBytes, applyRequestSchema);
  const batchSize = options.batchSize ?? RESTORE_BATCH_ROWS;
  const { restoreId, mode } = request;
  let release: (() => Promise<void>) | undefined;
  try {
    const db = requireDatabase(deps);
    let warnings: string[];
    let opened: { checkpoint: Checkpoint; fresh: boolean };
    try {
      warnings = (await restoreWarnings(db, layout)).map((w) => w.code);
      if (mode === 'merge') {
        const clashes = await findUniqueClashes(db, layout, artifactTables(layout), batchSize);
        if (clashes.length) {
          throw new UniqueClashError(
            `merge refused before any write: live rows with other ids hold the unique values of ${describeClashes(clashes)}; remove or change them, or restore in replace mode`,
            clashes,
          );
        }
      }
      release = await holdRestoreLock(db, restoreId);
      opened = await openCheckpoint(db, restoreId, layout.manifest.snapshot_id, mode, deps.clock.now());
    } catch (err) {
      if (err instanceof StorageUnavailableError) throw new NoDatabaseError(err.message);
      throw err;
    }
    const { checkpoint } = opened;
    if (checkpoint.completed_at) {
      const summary = checkpoint.summary as RestoreSummary;
      return { restoreId, duplicate: true, resumed: summary.resumed, warnings, summary };
    }
    const resumed = !opened.fresh;
    const done = new Set(checkpoint.completed_tables);
    const tables: Record<string, TableCounts> = {
      ...((checkpoint.summary as { tables?: Record<string, TableCounts> } | null)?.tables ?? {}),
    };
    const describe = new Map<string, LiveTable>();
    const totalRows = artifactTables(layout).reduce((n, t) => n + (layout.manifest.counts[t.name] ?? 0), 0);
    let doneRows = artifactTables(layout)
      .filter((t) => done.has(t.name))
      .reduce((n, t) => n + (layout.manifest.counts[t.name] ?? 0), 0);

    let current = '';
    try {
      for (const { step, table, kind } of stepsOf(layout, mode)) {
        if (done.has(step)) continue;
        current = step;
        const counts = await db.transaction(async (tx) => {
          const { rows } = await tx.query<{ completed_tables: string[] }>(
            'SELECT completed_tables FROM restore_checkpoints WHERE restore_id = $1 FOR UPDATE',
            [restoreId],
          );
          if (rows[0]!.completed_tables.includes(step)) return null; // finished by a concurrent apply of the same restoreId
          await tx.query(`SELECT set_config('task_server.restoring', 'on', true)`);
          await tx.query('SET CONSTRAINTS ALL DEFERRED');
          await useUtc(tx);
          const live = describe.get(table) ?? (await describeTable(tx, snapshotTableByName.get(table)!));
          describe.set(table, live);
          const result = { ...(tables[table] ?? { upserted: 0, deleted: 0 }) };
          let batchNo = 0;
          if (kind === 'delete') {
            const keys = new KeySet(tx, live);
            for await (const batch of tableRows(layout, table, batchSize)) {
              await keys.add(batch);
              await options.afterBatch?.({ step, table, batch: batchNo++, rows: batch.length });
            }
            result.deleted = await keys.deleteOthers();
          } else {
            result.upserted = 0;
            for await (const batch of tableRows(layout, table, batchSize)) {
              const changed = (await classifyBatch(tx, live, batch, layout.manifest.created_at))
                .filter((c) => c.kind !== 'unchanged')
                .map((c) => (c.live ? (keepLiveSecrets(c.row, c.live) as Record<string, unknown>) : c.row));
              result.upserted += await upsertRows(tx, live, changed);
              await options.afterBatch?.({ step, table, batch: batchNo++, rows: batch.length });
            }
            await advanceSequences(tx, live);
          }
          tables[table] = result;
          await tx.query(
            `UPDATE restore_checkpoints SET completed_tables = array_append(completed_tables, $2), summary = $3, last_error = NULL WHERE restore_id = $1`,
            [restoreId, step, JSON.stringify({ tables })],
          );
          if (kind === 'upsert') {
            await deps.events.publish(tx, {
              name: 'restore-progress',
              channel: 'stream',
              payload: { restoreId, table, doneRows: doneRows + (layout.manifest.counts[table] ?? 0), totalRows },
            });
          }
          return result;
        });
        if (counts && kind === 'upsert') doneRows += layout.manifest.counts[table] ?? 0;
        if (counts) tables[table] = counts;
        done.add(step);
      }

      current = 'settings';
      const completedAt = deps.clock.now();
      const summary = await db.transaction(async (tx) => {
        const settings = await applySettings(tx, layout.settings, completedAt);
        // the usage rollup followed every restored batch; recomputed once more from the runs as restored
        await rebuildUsage(tx);
        const summary: RestoreSummary = {
          mode,
          resumed,
          tables,
          totals: totalsOf(tables),
          settings,
          startedAt: new Date(checkpoint.started_at).toISOString(),
          completedAt: completedAt.toISOString(),
        };
        const { rowCount } = await tx.query(
          `UPDATE restore_checkpoints SET completed_at = $2, summary = $3, last_error = NULL WHERE restore_id = $1 AND completed_at IS NULL`,
          [restoreId, completedAt, JSON.stringify(summary)],
        );
        if (rowCount === 0) throw new ConflictError(`restore ${restoreId} was completed by a concurrent request`);
        await recordChange(deps, tx, {
          actor,
          action: 'restore.applied',
          entityType: 'restore',
          entityId: restoreId,
          newValue: { restoreId, snapshot_id: layout.manifest.snapshot_id, ...summary },
          event: { name: 'restore:completed', payload: { restoreId, snapshotId: layout.manifest.snapshot_id }, channel: 'events' },
        });
        return summary;
      });
      // the audit rows it wrote made searchable now, not over the next dispatcher passes (20,000
      // each), so that a large restored log does not leave every q search computing their text;
      // the restore is already committed, and a failed fold leaves them to those passes
      await foldAuditSearch(db, Number.MAX_SAFE_INTEGER).catch(() => 0);
      return { restoreId, duplicate: false, resumed, warnings, summary };
    } catch (err) {
      const explanation = err instanceof DomainError ? err.message : 'the step failed; its transaction was rolled back';
      await recordFailure(deps, db, restoreId, current, err, actor).catch(() => undefined);
      throw new RestoreFailedError(restoreId, current, `${explanation}; re-send the same restoreId to resume`, [...done]);
    }
  } finally {
    await release?.();
    await layout.source.close();
  }
}

/**
 * One apply per restoreId at a time: a transaction-scoped advisory lock held, on a connection of
 * its own, until the returned release is called. A duplicate that finds it taken gets 409
 * restore_in_progress before touching the checkpoint, so it writes nothing (no failure row). If
 * the process dies, its connection closes and the database drops the lock, so a resume is never
 * blocked by a dead holder. The lock is taken before the checkpoint is read, so a duplicate
 * arriving just after completion reads the completed checkpoint and answers the stored summary.
 */
async function holdRestoreLock(db: Db, restoreId: string): Promise<() => Promise<void>> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let signal!: (held: boolean) => void;
  const acquired = new Promise<boolean>((resolve) => (signal = resolve));
  const holding = db.transaction(async (tx) => {
    const { rows } = await tx.query<{ held: boolean }>(
      `SELECT pg_try_advisory_xact_lock(hashtext('task_server.restore'), hashtext($1)) AS held`,
      [restoreId],
    );
    signal(rows[0]!.held);
    if (rows[0]!.held) await released;
  });
  // a failure before the answer (database gone) rejects here; after it, release() reports nothing
  const held = await Promise.race([acquired, holding.then(() => false)]);
  if (!held) throw new RestoreInProgressError(restoreId);
  return async () => {
    release();
    await holding.catch(() => undefined);
  };
}

async function recordFailure(deps: Deps, db: Db, restoreId: string, step: string, err: unknown, actor: string): Promise<void> {
  const message = `${step}: ${(err as Error)?.message ?? String(err)}`.slice(0, 2000);
  await db.transaction(async (tx) => {
    await tx.query('UPDATE restore_checkpoints SET last_error = $2 WHERE restore_id = $1', [restoreId, message]);
    await recordChange(deps, tx, {
      actor,
      action: 'restore.failed',
      entityType: 'restore',
      entityId: restoreId,
      newValue: { restoreId, failed_step: step },
    });
  });
}
