import pkg from '../../package.json' with { type: 'json' };
import type { Generator, SnapshotStore } from '../../core/snapshots/store';
import type { Config } from '../config';
import { fileSnapshotStore } from './file-store';

/** manifest.generator: this package's name and version, bundled at build time (no file read at run time). */
export const generator: Generator = { name: pkg.name, version: pkg.version };

/** Deps.snapshots for this process: the one place that chooses where artifacts are kept (SNAPSHOT_DIR). */
export function snapshotStoreFor(cfg: Pick<Config, 'snapshotDir'>): SnapshotStore {
  return fileSnapshotStore(cfg.snapshotDir);
}
