import { StorageUnavailableError } from './errors';
import type { Db, Storage } from './ports';

/** The database, or a 503-mapped error while the service runs on its read-only fallback copy. */
export function requireDb(storage: Storage): Db {
  if (storage.mode === 'database') return storage.db;
  throw new StorageUnavailableError(`database unavailable: ${storage.reason}; serving read-only fallback data`);
}
