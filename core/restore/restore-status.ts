import * as z from 'zod';
import { NotFoundError, SnapshotNotFoundError } from '../errors';
import type { Deps, SnapshotPorts } from '../ports';
import { requireDb } from '../storage';
import { openSnapshot } from '../snapshots/list-snapshots';
import { snapshotTableByName } from '../snapshots/tables';
import { parseId } from '../validation';

/**
 * GET /api/restore/:restoreId: what the server knows of a restore, for a client that lost the
 * answer of its POST /api/restore/apply (a reload, a dropped connection) while the apply goes on.
 * - `running`: a request holds the restore's lock (core/restore/apply.ts, holdRestoreLock) now;
 * - `completed`: the checkpoint is closed; `summary` is what the apply answered;
 * - `failed`: the last attempt stopped at `failed_step` (the restore.failed audit row says when);
 * - `interrupted`: steps are missing and nobody applies them (the process that did went away).
 * The last two resume when the same restoreId is applied again. Progress is counted as the
 * restore-progress event counts it: rows of the artifact's tables whose upsert step is done, out of
 * all its rows (null when the artifact is not stored, e.g. one sent whole in the apply's body).
 */
export const restoreStatusSchema = z.object({
  restoreId: z.string(),
  snapshot_id: z.string(),
  mode: z.enum(['merge', 'replace']),
  state: z.enum(['running', 'completed', 'failed', 'interrupted']),
  completed_steps: z.array(z.string()),
  steps_total: z.number().int().nullable(),
  done_rows: z.number().int().nullable(),
  total_rows: z.number().int().nullable(),
  failed_step: z.string().nullable(),
  started_at: z.string(),
  completed_at: z.string().nullable(),
  summary: z.record(z.string(), z.unknown()).nullable(),
});
export type RestoreStatus = z.infer<typeof restoreStatusSchema>;

interface CheckpointRow {
  snapshot_id: string;
  mode: 'merge' | 'replace';
  completed_tables: string[];
  started_at: Date;
  completed_at: Date | null;
  last_error: string | null;
  summary: Record<string, unknown> | null;
  running: boolean;
}

/** The advisory lock an apply holds (two int4 keys: classid and objid as unsigned oids, objsubid 2), looked up in pg_locks without taking it. */
const checkpointSql = `
  SELECT c.snapshot_id, c.mode, c.completed_tables, c.started_at, c.completed_at, c.last_error, c.summary,
         EXISTS (SELECT 1 FROM pg_locks l
                  WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
                    AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                    AND l.classid = (hashtext('task_server.restore')::bigint & 4294967295)::oid
                    AND l.objid = (hashtext(c.restore_id::text)::bigint & 4294967295)::oid) AS running
    FROM restore_checkpoints c WHERE c.restore_id = $1`;

export async function restoreStatus(deps: Pick<Deps, 'storage'> & SnapshotPorts, rawId: unknown): Promise<RestoreStatus> {
  const restoreId = parseId(rawId, 'restoreId');
  const { rows } = await requireDb(deps.storage).query<CheckpointRow>(checkpointSql, [restoreId]);
  const c = rows[0];
  if (!c) throw new NotFoundError(`no restore ${restoreId} has started (an apply opens its checkpoint once the artifact is verified)`);
  const counts = await manifestCounts(deps, c.snapshot_id);
  const tables = counts ? Object.keys(counts).filter((t) => snapshotTableByName.has(t)) : undefined;
  const state = c.completed_at ? 'completed' : c.running ? 'running' : c.last_error ? 'failed' : 'interrupted';
  return {
    restoreId,
    snapshot_id: c.snapshot_id,
    mode: c.mode,
    state,
    completed_steps: c.completed_tables,
    steps_total: tables ? tables.length * (c.mode === 'replace' ? 2 : 1) : null,
    done_rows: counts ? c.completed_tables.reduce((n, step) => n + (counts[step] ?? 0), 0) : null,
    total_rows: tables ? tables.reduce((n, t) => n + counts![t]!, 0) : null,
    // the step only: the error text itself may carry driver detail, and the failure's answer already said why
    failed_step: state === 'failed' ? c.last_error!.split(':')[0]! : null,
    started_at: new Date(c.started_at).toISOString(),
    completed_at: c.completed_at ? new Date(c.completed_at).toISOString() : null,
    summary: c.completed_at ? c.summary : null,
  };
}

/** The row counts of the stored snapshot's manifest, or undefined when it is not (or no longer) stored. */
async function manifestCounts(deps: SnapshotPorts, snapshotId: string): Promise<Record<string, number> | undefined> {
  try {
    const { manifest, source } = await openSnapshot(deps, snapshotId);
    await source.close();
    return manifest.counts;
  } catch (err) {
    if (err instanceof SnapshotNotFoundError) return undefined;
    throw err;
  }
}
