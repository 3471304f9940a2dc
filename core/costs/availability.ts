import { DegradedError, DomainError, ValidationError, ValidationFailedError } from '../errors';
import type { Db, Storage } from '../ports';

/**
 * Runs work that needs the database under spec 02's degradation family for reads (and for every
 * budget endpoint): without a database, or when a query fails, a DegradedError (200 {available:
 * false, reason, ...context}). Domain errors (validation, not found) pass through to the caller.
 */
export async function degradable<Result>(
  storage: Storage,
  work: (db: Db) => Promise<Result>,
  context: Record<string, unknown> = {},
): Promise<Result> {
  if (storage.mode !== 'database') throw new DegradedError('no_database', context);
  try {
    return await work(storage.db);
  } catch (err) {
    if (err instanceof DomainError && err.code !== 'storage_unavailable') throw err;
    throw new DegradedError(err instanceof DomainError ? 'no_database' : 'query_failed', context);
  }
}

/** Runs `work`; a ValidationError becomes spec 02's exact validation_failed answer. */
export async function answeringValidation<Result>(work: () => Promise<Result>): Promise<Result> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof ValidationError && !(err instanceof ValidationFailedError)) throw new ValidationFailedError(err);
    throw err;
  }
}
