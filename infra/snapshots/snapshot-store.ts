import pkg from '../../package.json' with { type: 'json' };
import type { Generator, SnapshotStore } from '../../core/ports';
import type { Config } from '../config';
import { fileSnapshotStore } from './file-store';
import { s3SnapshotStore } from './s3-store';

/** manifest.generator: this package's name and version, bundled at build time (no file read at run time). */
export const generator: Generator = { name: pkg.name, version: pkg.version };

/**
 * Deps.snapshots for this process, the one place that picks where artifacts live: the S3 bucket of
 * SNAPSHOT_BUCKET when it is set (shared by every Lambda instance and container replica), else the
 * directory SNAPSHOT_DIR. createAppContext builds it once per process, so one S3 client serves
 * every request.
 */
export function snapshotStoreFor(cfg: Pick<Config, 'snapshotBucket' | 'snapshotPrefix' | 's3Endpoint' | 'snapshotDir'>): SnapshotStore {
  if (!cfg.snapshotBucket) return fileSnapshotStore(cfg.snapshotDir);
  return s3SnapshotStore({ bucket: cfg.snapshotBucket, prefix: cfg.snapshotPrefix, endpoint: cfg.s3Endpoint });
}
