import type { SnapshotStore } from '../../core/snapshots/store';
import type { Config } from '../config';
import { fileSnapshotStore } from './file-store';
import { s3SnapshotStore } from './s3-store';

const bucketStores = new Map<string, SnapshotStore>();

/**
 * The one place that picks where snapshot artifacts live: the S3 bucket of SNAPSHOT_BUCKET when it is
 * set (shared by every Lambda instance and container replica), else the directory SNAPSHOT_DIR.
 * A bucket's store is kept per bucket, prefix and endpoint, so its S3 client and connections serve
 * every request; a directory store is a few closures and is made as asked.
 */
export function snapshotStoreFor(config: Pick<Config, 'snapshotBucket' | 'snapshotPrefix' | 's3Endpoint' | 'snapshotDir'>): SnapshotStore {
  const bucket = config.snapshotBucket;
  if (!bucket) return fileSnapshotStore(config.snapshotDir);
  const key = JSON.stringify([bucket, config.snapshotPrefix, config.s3Endpoint ?? null]);
  let store = bucketStores.get(key);
  if (!store) {
    store = s3SnapshotStore({ bucket, prefix: config.snapshotPrefix, endpoint: config.s3Endpoint });
    bucketStores.set(key, store);
  }
  return store;
}
