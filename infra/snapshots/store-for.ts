import type { SnapshotStore } from '../../core/snapshots/store';
import type { Config } from '../config';
import { fileSnapshotStore } from './file-store';
import { s3SnapshotStore } from './s3-store';

const built = new WeakMap<Config, SnapshotStore>();

/**
 * The one place that picks where snapshot artifacts live: the S3 bucket of SNAPSHOT_BUCKET when it is
 * set (shared by every Lambda instance and container replica), else the directory SNAPSHOT_DIR.
 * One store per configuration, so the S3 client and its connections are reused across requests.
 */
export function snapshotStoreFor(config: Config): SnapshotStore {
  let store = built.get(config);
  if (!store) {
    store = config.snapshotBucket
      ? s3SnapshotStore({ bucket: config.snapshotBucket, prefix: config.snapshotPrefix, endpoint: config.s3Endpoint })
      : fileSnapshotStore(config.snapshotDir);
    built.set(config, store);
  }
  return store;
}
