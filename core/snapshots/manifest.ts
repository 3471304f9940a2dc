import * as z from 'zod';

/** Spec 02 "Snapshot artifact (version 1)": the manifest that heads every artifact. */
export const ARTIFACT_VERSION = 1;

export const manifestSchema = z.object({
  artifact_version: z.literal(ARTIFACT_VERSION, { message: `must be ${ARTIFACT_VERSION}` }),
  snapshot_id: z.uuid({ message: 'must be a UUID' }),
  name: z.string().min(1).max(200),
  created_at: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 timestamp' }),
  actor: z.string().min(1),
  generator: z.string().min(1),
  schema_version: z.object({ migrations_applied: z.array(z.string()) }),
  counts: z.record(z.string(), z.number().int().min(0)),
  content_hash: z.string().regex(/^[0-9a-f]{64}$/, 'must be a lowercase hex SHA-256'),
});

export type Manifest = z.infer<typeof manifestSchema>;

/** Snapshot listing entry (spec 02). */
export const snapshotListEntrySchema = z.object({
  snapshot_id: z.string(),
  name: z.string(),
  created_at: z.string(),
  total_rows: z.number().int(),
  size_bytes: z.number().int(),
  generator: z.string(),
  /** The manifest's SHA-256 of the artifact's content, so an operator can tell two snapshots of the same state apart from two of different ones. */
  content_hash: z.string(),
});
export type SnapshotListEntry = z.infer<typeof snapshotListEntrySchema>;

export function totalRows(manifest: Pick<Manifest, 'counts'>): number {
  return Object.values(manifest.counts).reduce((sum, n) => sum + n, 0);
}

/** spec 02: the default name pattern snapshot-YYYYMMDD-HHmm (UTC). */
export function defaultSnapshotName(at: Date): string {
  const iso = at.toISOString();
  return `snapshot-${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}-${iso.slice(11, 13)}${iso.slice(14, 16)}`;
}
