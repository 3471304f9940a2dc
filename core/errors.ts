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
