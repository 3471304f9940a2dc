/**
 * What the snapshot use cases need from the artifact store (infra/snapshots/file-store.ts keeps
 * artifacts as files in SNAPSHOT_DIR, infra/snapshots/s3-store.ts as objects in SNAPSHOT_BUCKET).
 */

/** Random-access bytes: an artifact file, or a request body already in memory. */
export interface ByteSource {
  readonly size: number;
  read(position: number, length: number): Promise<Uint8Array>;
  close(): Promise<void>;
}

/** The body of an artifact being written; nothing is visible in the store until commit. */
export interface ArtifactWriter {
  write(text: string): Promise<void>;
  /** Writes `head`, the body written so far, then `tail` into the final file, fsyncs it and renames it into place. */
  commit(head: string, tail: string): Promise<{ sizeBytes: number }>;
  /** Removes whatever was written; safe to call after a failure at any point. */
  abort(): Promise<void>;
}

export interface StoredArtifact {
  id: string;
  sizeBytes: number;
}

export interface SnapshotStore {
  createWriter(snapshotId: string): Promise<ArtifactWriter>;
  /** Artifact files present, unordered. Files that cannot be read are left out. */
  list(): Promise<StoredArtifact[]>;
  /** The artifact of a snapshot id, or null when there is none (or the id is not a snapshot id). */
  open(snapshotId: string): Promise<ByteSource | null>;
  /**
   * A short-lived URL the client can fetch the artifact from directly (an object store's pre-signed
   * URL), served as an attachment named `fileName`. Stores that cannot hand one out leave this out.
   */
  downloadUrl?(snapshotId: string, fileName: string): Promise<string | null>;
}

/** Who produced an artifact (manifest.generator). */
export interface Generator {
  name: string;
  version: string;
}

/** The dependencies of snapshot and restore use cases: the usual ports plus the store and the generator. */
export interface SnapshotPorts {
  snapshots: SnapshotStore;
  generator: Generator;
}
