import pkg from '../../package.json' with { type: 'json' };
import type { SnapshotDeps } from '../../core/snapshots/create-snapshot';
import type { Generator } from '../../core/snapshots/store';
import type { AppContext } from '../app-context';
import { snapshotStoreFor } from './store-for';

/** manifest.generator: this package's name and version, bundled at build time (no file read at run time). */
export const generator: Generator = { name: pkg.name, version: pkg.version };

/** The ports of the snapshot and restore use cases for this process: its Deps, the artifact store, the generator. */
export function snapshotDeps(app: Pick<AppContext, 'deps' | 'config'>): SnapshotDeps {
  return { ...app.deps, snapshots: snapshotStoreFor(app.config), generator };
}
