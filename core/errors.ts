/**
 * Domain failures, one class per kind. Each carries a stable `code`; the HTTP layer maps
 * codes to statuses in one table (handlers/http/error-status.ts).
 */
export abstract class DomainError extends Error {
  abstract readonly code: string;
  /** Extra fields merged into the JSON error body. */
  readonly extra: Record<string, unknown>;
  constructor(message: string, extra: Record<string, unknown> = {}) {
    super(message);
    this.name = new.target.name;
    this.extra = extra;
  }
}

export interface ValidationIssue {
  path: string;
  message: string;
}

export class ValidationError extends DomainError {
  readonly code = 'validation_failed';
  constructor(message: string, readonly details: ValidationIssue[] = []) {
    super(message, details.length ? { details } : {});
  }
}

export class NotFoundError extends DomainError {
  readonly code = 'not_found';
}

export class ConflictError extends DomainError {
  readonly code = 'conflict';
}

/** The database is absent (fallback mode) or went away: the caller should retry later. */
export class StorageUnavailableError extends DomainError {
  readonly code = 'storage_unavailable';
}

export class UnauthorizedError extends DomainError {
  readonly code = 'unauthorized';
}

export class ForbiddenError extends DomainError {
  readonly code = 'forbidden';
}

export class PayloadTooLargeError extends DomainError {
  readonly code = 'payload_too_large';
}

/** An answer too large for an invoker that cannot stream it (a synchronous Lambda response). */
export class ResponseTooLargeError extends DomainError {
  readonly code = 'response_too_large';
}

/** A dependency outside the server (the agent runtime) failed. */
export class UpstreamError extends DomainError {
  readonly code = 'upstream_failed';
}

/** Why a call to the agent runtime failed (runtime contract §1). */
export type RuntimeFailure = 'unavailable' | 'failed' | 'timed_out' | 'bad_output';

/** A runtime CLI call failed; `failure` says how. Mapped to 502 unless an endpoint says otherwise. */
export class RuntimeCallError extends DomainError {
  readonly code = 'runtime_failed';
  constructor(message: string, readonly failure: RuntimeFailure) {
    super(message, { failure });
  }
}

/*
 * Snapshot and restore (spec 02). Its error bodies name the condition in `error` itself
 * ({error: 'invalid_manifest', ...}), so each of these classes uses its code as its message
 * and carries the human explanation under `message`.
 */

/** A secret named by a *_SSM variable (the bearer token, the connection string) could not be read: nothing is served without it. */
export class SecretsUnavailableError extends DomainError {
  readonly code = 'secrets_unavailable';
}

/** Spec 02: mutating endpoints without a database answer 503 {available: false, reason: 'no_database'}. */
export class NoDatabaseError extends DomainError {
  readonly code = 'no_database';
  constructor(explanation = 'no database: nothing was written') {
    super('no_database', { available: false, reason: 'no_database', message: explanation });
  }
}

export class SnapshotNotFoundError extends DomainError {
  readonly code = 'snapshot_not_found';
  constructor(explanation: string) {
    super('snapshot_not_found', { message: explanation });
  }
}

/** A body or artifact that is not JSON at all (the "parse" step of the restore validation order). */
export class MalformedJsonError extends DomainError {
  readonly code = 'malformed_json';
  constructor(explanation: string) {
    super('malformed_json', { message: explanation });
  }
}

export class InvalidManifestError extends DomainError {
  readonly code = 'invalid_manifest';
  constructor(explanation: string, details: ValidationIssue[] = []) {
    super('invalid_manifest', { message: explanation, details });
  }
}

export class ArtifactCorruptError extends DomainError {
  readonly code = 'artifact_corrupt';
  constructor(explanation: string) {
    super('artifact_corrupt', { message: explanation });
  }
}

export class SchemaTooNewError extends DomainError {
  readonly code = 'schema_too_new';
  constructor(readonly missing: string[]) {
    super('schema_too_new', { message: `the artifact needs migrations this server lacks: ${missing.join(', ')}`, missing });
  }
}

/** A merge restore would meet live rows holding the artifact rows' unique values: refused before any write. */
export class UniqueClashError extends DomainError {
  readonly code = 'unique_clash';
  constructor(message: string, clashes: unknown[]) {
    super('unique_clash', { message, clashes });
  }
}

/** A restore apply failed part-way; re-sending the same restoreId resumes it (spec 02 Restore lifecycle). */
export class RestoreFailedError extends DomainError {
  readonly code = 'restore_failed';
  constructor(restoreId: string, step: string, explanation: string, completedTables: string[]) {
    super('restore_failed', { message: explanation, restoreId, failed_step: step, completed_tables: completedTables });
  }
}

/** An action the caller asked for ran and failed (spec 01: a cron run-now or a job-file write answers 500). */
export class ExecutionFailedError extends DomainError {
  readonly code = 'execution_failed';
}

/** Too many requests in a window (chat's CHAT_RATE_LIMIT); `retryAfterSeconds` says when to try again. */
export class RateLimitedError extends DomainError {
  readonly code = 'rate_limited';
  constructor(message: string, readonly retryAfterSeconds: number) {
    super(message, { retryAfterSeconds });
  }
}
