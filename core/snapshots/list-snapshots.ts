import * as z from 'zod';
import { SnapshotNotFoundError } from '../errors';
import { parseInput } from '../validation';
import { JsonScanner } from './json-scanner';
import { manifestSchema, totalRows, type Manifest, type SnapshotListEntry } from './manifest';
import type { ByteSource, SnapshotPorts } from '../ports';

/** The manifest of an artifact, or null when the file is not a readable artifact of this id. */
export async function readManifest(source: ByteSource, expectedId?: string): Promise<Manifest | null> {
  const scanner = new JsonScanner(source);
  let manifest: unknown;
  try {
    // our artifacts put the manifest first, so the walk stops after it
    await scanner.document(async (key, span) => {
      if (key !== 'manifest') return true;
      manifest = await scanner.parse(span);
      return false;
    });
  } catch {
    return null;
  }
  const parsed = manifestSchema.safeParse(manifest);
  if (!parsed.success) return null;
  if (expectedId && parsed.data.snapshot_id !== expectedId) return null;
  return parsed.data;
}

/**
 * GET /api/snapshots: the artifacts in the store, newest first by created_at. Files that cannot be
 * read or whose manifest is missing or malformed are skipped. Needs no database.
 */
export async function listSnapshots(deps: SnapshotPorts): Promise<{ available: true; count: number; snapshots: SnapshotListEntry[] }> {
  const snapshots: SnapshotListEntry[] = [];
  for (const stored of await deps.snapshots.list()) {
    const source = await deps.snapshots.open(stored.id).catch(() => null);
    if (!source) continue;
    try {
      const manifest = await readManifest(source, stored.id);
      if (!manifest) continue;
      snapshots.push({
        snapshot_id: manifest.snapshot_id,
        name: manifest.name,
        created_at: manifest.created_at,
        total_rows: totalRows(manifest),
        size_bytes: source.size,
        generator: manifest.generator,
        content_hash: manifest.content_hash,
      });
    } finally {
      await source.close();
    }
  }
  snapshots.sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at) || b.snapshot_id.localeCompare(a.snapshot_id));
  return { available: true, count: snapshots.length, snapshots };
}

/** The stored artifact of a snapshot id, opened for reading; 404 snapshot_not_found for an unknown, malformed or unreadable id. */
export async function openSnapshot(deps: SnapshotPorts, rawId: unknown): Promise<{ manifest: Manifest; source: ByteSource }> {
  const id = typeof rawId === 'string' ? rawId : '';
  const source = await deps.snapshots.open(id).catch(() => null);
  if (!source) throw new SnapshotNotFoundError(`no snapshot with id ${JSON.stringify(id.slice(0, 80))}`);
  const manifest = await readManifest(source, id);
  if (!manifest) {
    await source.close();
    throw new SnapshotNotFoundError(`snapshot ${id} is not a readable artifact`);
  }
  return { manifest, source };
}

/** A file name for Content-Disposition: the snapshot name, reduced to safe characters, with .json. */
export function artifactFileName(manifest: Manifest): string {
  const base =
    manifest.name
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .replace(/^[._]+/, '')
      .slice(0, 120) || manifest.snapshot_id;
  return `${base}.json`;
}

/** Bytes per read while an artifact is streamed out. */
const DOWNLOAD_CHUNK_BYTES = 1 << 20;

export interface ArtifactDownload {
  fileName: string;
  sizeBytes: number;
  /** The artifact's bytes in order; reading them to the end (or stopping early) closes the file. */
  chunks: AsyncIterable<Uint8Array>;
}

/** A download answered by the store's own short-lived URL rather than through this server. */
export interface ArtifactRedirect {
  fileName: string;
  sizeBytes: number;
  redirectUrl: string;
}

const downloadQuerySchema = z
  .object({ redirect: z.enum(['0', '1'], { message: 'redirect must be 0 or 1' }).optional() })
  .loose()
  .optional();

/**
 * GET /api/snapshots/:id/download: the raw artifact, streamed in chunks so an artifact of any size
 * passes through bounded memory. Needs no database. When the store can hand out a pre-signed URL
 * (the S3 store), the answer is that URL instead if the client asks (`?redirect=1`) or if the
 * artifact is larger than `streamLimitBytes`, what the invoker can carry in one response.
 */
export async function downloadSnapshot(
  deps: SnapshotPorts,
  rawId: unknown,
  query?: unknown,
  streamLimitBytes = Number.POSITIVE_INFINITY,
): Promise<ArtifactDownload | ArtifactRedirect> {
  const asked = parseInput(downloadQuerySchema, query ?? undefined, 'query')?.redirect;
  const { manifest, source } = await openSnapshot(deps, rawId);
  const fileName = artifactFileName(manifest);
  const redirect = asked === '1' || (asked !== '0' && source.size > streamLimitBytes);
  const redirectUrl = redirect && deps.snapshots.downloadUrl ? await deps.snapshots.downloadUrl(manifest.snapshot_id, fileName) : null;
  if (redirectUrl) {
    await source.close();
    return { fileName, sizeBytes: source.size, redirectUrl };
  }
  async function* chunks(): AsyncGenerator<Uint8Array> {
    try {
      for (let position = 0; position < source.size; position += DOWNLOAD_CHUNK_BYTES) {
        yield await source.read(position, Math.min(DOWNLOAD_CHUNK_BYTES, source.size - position));
      }
    } finally {
      await source.close();
    }
  }
  return { fileName, sizeBytes: source.size, chunks: chunks() };
}
