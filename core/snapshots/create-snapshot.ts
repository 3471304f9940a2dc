import { createHash } from 'node:crypto';
import * as z from 'zod';
import { OPERATOR_ACTOR } from '../actors';
import { recordChange } from '../audit/record-change';
import { NoDatabaseError, StorageUnavailableError } from '../errors';
import type { Db, Deps } from '../ports';
import { redactSecrets } from '../secrets/redact';
import { snapshotSettings } from '../settings/settings';
import { parseInput } from '../validation';
import { canonicalJson } from './canonical-json';
import { describeTable, primaryKeySql, quoteIdent, rowJsonSql, useUtc } from './live-table';
import { ARTIFACT_VERSION, defaultSnapshotName, totalRows, type Manifest } from './manifest';
import type { ArtifactWriter } from '../ports';
import { snapshotTableByName, snapshotTableNamesSorted } from './tables';

/** Rows fetched from the cursor per round trip. */
const FETCH_ROWS = 1000;

export const snapshotRequestSchema = z.strictObject({
  name: z.string().trim().min(1, 'must not be empty').max(120, 'must be at most 120 characters').optional(),
});

/** Validates a POST /api/snapshots body ({name} optional). */
export function parseSnapshotRequest(body: unknown): { name?: string } {
  return parseInput(snapshotRequestSchema, body ?? {}, 'snapshot request');
}

export interface CreateSnapshotResult {
  snapshot_id: string;
  manifest: Manifest;
}

/** The database, or spec 02's 503 {available: false, reason: no_database}. */
export function requireDatabase(deps: Deps): Db {
  if (deps.storage.mode !== 'database') throw new NoDatabaseError(`no database (${deps.storage.reason}): nothing was written`);
  return deps.storage.db;
}

/**
 * Streams every captured table into the writer in canonical form, hashing what it writes.
 * All tables are read in one REPEATABLE READ transaction, so the artifact is one consistent
 * moment of the database; each table through a cursor, so memory holds one fetch at a time.
 */
async function writeBody(
  db: Db,
  writer: ArtifactWriter,
): Promise<{ counts: Record<string, number>; contentHash: string; migrations: string[] }> {
  return db.transaction(async (tx) => {
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    await useUtc(tx);
    const hash = createHash('sha256');
    const emit = async (text: string) => {
      hash.update(text);
      await writer.write(text);
    };
    hash.update('{');
    await emit(`"settings":${canonicalJson(await snapshotSettings(tx))},"tables":{`);
    const counts: Record<string, number> = {};
    let firstTable = true;
    for (const name of snapshotTableNamesSorted) {
      const live = await describeTable(tx, snapshotTableByName.get(name)!);
      await emit(`${firstTable ? '' : ','}${JSON.stringify(name)}:[`);
      firstTable = false;
      await tx.query(
        `DECLARE snapshot_rows NO SCROLL CURSOR FOR SELECT ${rowJsonSql(live, 't')} AS row FROM ${quoteIdent(name)} t ORDER BY ${primaryKeySql(live, 't')}`,
      );
      let count = 0;
      for (;;) {
        const { rows } = await tx.query<{ row: string }>(`FETCH ${FETCH_ROWS} FROM snapshot_rows`);
        if (!rows.length) break;
        const text = rows.map((r) => canonicalJson(redactSecrets(JSON.parse(r.row)))).join(',');
        await emit(count ? `,${text}` : text);
        count += rows.length;
      }
      await tx.query('CLOSE snapshot_rows');
      await emit(']');
      counts[name] = count;
    }
    await emit('}');
    hash.update('}');
    const { rows } = await tx.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
    return { counts, contentHash: hash.digest('hex'), migrations: rows.map((r) => r.name) };
  });
}

/**
 * Creates a full-state snapshot (spec 02 POST /api/snapshots):
 * 1. validate the name (default snapshot-YYYYMMDD-HHmm) and require the database (503 otherwise);
 * 2. stream settings and every table of tiers A to D, redacted and canonical, into a temporary file
 *    while hashing {settings, tables};
 * 3. build the manifest (counts, applied migrations, generator, content_hash);
 * 4. audit `created` for the snapshot and, in the same transaction, move the file into place
 *    (manifest first, fsync, rename), so the artifact exists exactly when its audit row does.
 * Nothing is left behind on failure (abort removes the temporary and, if renamed, the final file).
 */
export async function createSnapshot(deps: Deps, input: { name?: string; actor?: string } = {}): Promise<CreateSnapshotResult> {
  const { name: requested } = parseSnapshotRequest(input.name === undefined ? {} : { name: input.name });
  const db = requireDatabase(deps);
  const actor = input.actor ?? OPERATOR_ACTOR;
  const createdAt = deps.clock.now();
  const snapshotId = deps.ids.uuid();
  const writer = await deps.snapshots.createWriter(snapshotId);
  try {
    const body = await writeBody(db, writer);
    const manifest: Manifest = {
      artifact_version: ARTIFACT_VERSION,
      snapshot_id: snapshotId,
      name: requested ?? defaultSnapshotName(createdAt),
      created_at: createdAt.toISOString(),
      actor,
      generator: `${deps.generator.name}@${deps.generator.version}`,
      schema_version: { migrations_applied: body.migrations },
      counts: body.counts,
      content_hash: body.contentHash,
    };
    await db.transaction(async (tx) => {
      await recordChange(deps, tx, {
        actor,
        action: 'created',
        entityType: 'snapshot',
        entityId: snapshotId,
        newValue: { snapshot_id: snapshotId, name: manifest.name, total_rows: totalRows(manifest), content_hash: manifest.content_hash },
      });
      // last inside the transaction: a failed rename rolls the audit row back; a failed commit
      // after it makes abort() remove the renamed file
      await writer.commit(`{"manifest":${canonicalJson(manifest)},`, '}');
    });
    return { snapshot_id: snapshotId, manifest };
  } catch (err) {
    await writer.abort();
    if (err instanceof StorageUnavailableError) throw new NoDatabaseError(`${err.message}: nothing was written`);
    throw err;
  }
}
