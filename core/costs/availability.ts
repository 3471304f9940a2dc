import { DomainError, ValidationError } from '../errors';
import type { Db, Storage } from '../ports';

/**
 * Spec 02 fixes the bodies of this area's answers (degraded reads, validation_failed, not_found),
 * so use cases return the status with the body and the handler passes both through.
 */
export interface Answer<Body = unknown> {
  status: number;
  body: Body;
}

export type Unavailable = { available: false; reason: 'no_database' | 'query_failed' };

/**
 * Runs work that needs the database and answers spec 02's degradation family for reads (and for
 * every budget endpoint): 200 {available: false, reason} without a database or when a query
 * fails. Domain errors (validation, not found) pass through to the caller.
 */
export async function degradable<Body>(
  storage: Storage,
  work: (db: Db) => Promise<Answer<Body>>,
  extra: Record<string, unknown> = {},
): Promise<Answer<Body | (Unavailable & Record<string, unknown>)>> {
  if (storage.mode !== 'database') return { status: 200, body: { available: false, reason: 'no_database', ...extra } };
  try {
    return await work(storage.db);
  } catch (err) {
    if (err instanceof DomainError && err.code !== 'storage_unavailable') throw err;
    const reason = err instanceof DomainError ? 'no_database' : 'query_failed';
    return { status: 200, body: { available: false, reason, ...extra } };
  }
}

/** The spec 02 body of a validation failure: exactly {error: 'validation_failed', details[]}. */
export function validationFailed(err: ValidationError): Answer<{ error: 'validation_failed'; details: Array<{ path: string; message: string }> }> {
  const details = err.details.length ? err.details : [{ path: 'request', message: err.message }];
  return { status: 400, body: { error: 'validation_failed', details } };
}

/** Runs `work`; a ValidationError becomes spec 02's validation_failed body instead of the generic error body. */
export async function answeringValidation<Body>(work: () => Promise<Answer<Body>>): Promise<Answer<Body | ReturnType<typeof validationFailed>['body']>> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof ValidationError) return validationFailed(err);
    throw err;
  }
}
