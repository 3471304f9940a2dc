/**
 * Domain failures, one class per kind. Each carries a stable `code`; the HTTP layer maps
 * codes to statuses in one table (handlers/middleware/error-status.ts). Core never builds an
 * HTTP answer itself: every answer that is not the use case's result is one of these.
 */
export abstract class DomainError extends Error {
  /**
   * Whether an error of this kind records where it was thrown. Most are answers (a 409 to the 49
   * losers of a claim race, a 404), whose stacks nobody reads and whose capture cost ~5 µs each,
   * more than the rest of a losing claim's work in the process. A kind answered 5xx is logged as a
   * failure, with its stack, and sets this (test/unit/error-status.test.ts holds the two sets).
   */
  static readonly traced: boolean = false;
  abstract readonly code: string;
  /** Extra fields merged into the JSON error body. */
  readonly extra: Record<string, unknown>;
  constructor(message: string, extra: Record<string, unknown> = {}) {
    const limit = Error.stackTraceLimit;
    if (!(new.target as unknown as typeof DomainError).traced) Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = new.target.name;
    this.extra = extra;
  }

  /**
   * The JSON body of the answer: {error, code, ...extra}. The answers whose bodies spec 02 fixes
   * exactly (below) override it; the status still comes from the one table.
   */
  body(): Record<string, unknown> {
    return { error: this.message, code: this.code, ...this.extra };
  }
}

export interface ValidationIssue {
  path: string;
  message: string;
}

export class ValidationError extends DomainError {
  readonly code = 'validation_failed';
  constructor(
    message: string,
    readonly details: ValidationIssue[] = [],
  ) {
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
  static override readonly traced = true;
  readonly code = 'storage_unavailable';
}

export class UnauthorizedError extends DomainError {
  readonly code = 'unauthorized';
}

/** The caller may not do this (an agent token beyond its rule): 403 {error: 'forbidden', code, reason}. */
export class ForbiddenError extends DomainError {
  readonly code = 'forbidden';
  constructor(readonly reason: string) {
    super(reason);
  }
  override body() {
    return { error: 'forbidden', code: this.code, reason: this.reason };
  }
}

export class PayloadTooLargeError extends DomainError {
  readonly code = 'payload_too_large';
}

/** The path exists, not with this method (a stream opened with HEAD). The caller adds `Allow`. */
export class MethodNotAllowedError extends DomainError {
  readonly code = 'method_not_allowed';
}

/** Bytes that are not an HTTP request (a raw control byte in the path, a broken header): refused before routing. */
export class MalformedRequestError extends DomainError {
  readonly code = 'malformed_request';
}

/** A request line and headers above node:http's limit. */
export class HeaderTooLargeError extends DomainError {
  readonly code = 'header_too_large';
}

/** The process is closing: a new stream would be cut at once. The caller adds `Retry-After`. */
export class ShuttingDownError extends DomainError {
  static override readonly traced = true;
  readonly code = 'shutting_down';
  constructor() {
    super('the server is shutting down');
  }
}

/** Every event-stream slot is taken (SSE_MAX_CLIENTS): retry later. The caller adds `Retry-After`. */
export class TooManyStreamClientsError extends DomainError {
  static override readonly traced = true;
  readonly code = 'too_many_stream_clients';
  constructor(limit: number) {
    super(`too many stream clients: the limit is ${limit} (setting SSE_MAX_CLIENTS); retry later`, { limit });
  }
}

/** Every session-tail slot is taken (SSE_MAX_SESSION_TAILS): retry later. The caller adds `Retry-After`. */
export class TooManySessionTailsError extends DomainError {
  static override readonly traced = true;
  readonly code = 'too_many_session_tails';
  constructor(limit: number) {
    super(`too many session tails: the limit is ${limit} (setting SSE_MAX_SESSION_TAILS); retry later`, { limit });
  }
}

/** An answer too large for an invoker that cannot stream it (a synchronous Lambda response). */
export class ResponseTooLargeError extends DomainError {
  readonly code = 'response_too_large';
}

/** Why a call to the agent runtime failed (runtime contract §1). */
export type RuntimeFailure = 'unavailable' | 'failed' | 'timed_out' | 'bad_output';

/** A runtime CLI call failed; `failure` says how. Mapped to 502 unless an endpoint says otherwise. */
export class RuntimeCallError extends DomainError {
  static override readonly traced = true;
  readonly code = 'runtime_failed';
  constructor(
    message: string,
    readonly failure: RuntimeFailure,
  ) {
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
  static override readonly traced = true;
  readonly code = 'secrets_unavailable';
}

/** Spec 02: mutating endpoints without a database answer 503 {available: false, reason: 'no_database'}. */
export class NoDatabaseError extends DomainError {
  static override readonly traced = true;
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
  static override readonly traced = true;
  readonly code = 'restore_failed';
  constructor(restoreId: string, step: string, explanation: string, completedTables: string[]) {
    super('restore_failed', { message: explanation, restoreId, failed_step: step, completed_tables: completedTables });
  }
}

/** Why a snapshot artifact could not be written, without any path (spec 02 secrets policy covers messages too). */
export type SnapshotWriteFailure = 'disk_full' | 'read_only' | 'permission_denied' | 'io_error';

const snapshotWriteExplanations: Record<SnapshotWriteFailure, string> = {
  disk_full: 'the snapshot disk is full',
  read_only: 'the snapshot folder is on a read-only file system',
  permission_denied: 'the server may not write into the snapshot folder',
  io_error: 'the snapshot folder could not be written',
};

/** The artifact store refused the write (disk full, read-only, …); nothing was kept. */
export class SnapshotWriteFailedError extends DomainError {
  static override readonly traced = true;
  readonly code = 'snapshot_write_failed';
  constructor(readonly reason: SnapshotWriteFailure) {
    super('snapshot_write_failed', { message: `${snapshotWriteExplanations[reason]}; nothing was written`, reason });
  }
}

/** Another request is applying the same restoreId right now; re-send it once that one answers. */
export class RestoreInProgressError extends DomainError {
  readonly code = 'restore_in_progress';
  constructor(restoreId: string) {
    super('restore_in_progress', {
      message: `restore ${restoreId} is being applied by another request; re-send it once that one has answered`,
      restoreId,
    });
  }
}

/** An action the caller asked for ran and failed (spec 01: a cron run-now or a job-file write answers 500). */
export class ExecutionFailedError extends DomainError {
  static override readonly traced = true;
  readonly code = 'execution_failed';
}

/** Too many requests in a window (chat's CHAT_RATE_LIMIT); `retryAfterSeconds` says when to try again. */
export class RateLimitedError extends DomainError {
  readonly code = 'rate_limited';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message, { retryAfterSeconds });
  }
}

/** An Idempotency-Key already created a run from another request: nothing was created. */
export class IdempotencyConflictError extends DomainError {
  readonly code = 'idempotency_conflict';
  constructor(key: string, runId: string) {
    super('idempotency_conflict', {
      message: `Idempotency-Key ${key} already created workflow run ${runId} from a different request`,
      run_id: runId,
    });
  }
}

/** The task already has a live run and the workflow asks for one live run per task. */
export class ActiveRunExistsError extends DomainError {
  readonly code = 'active_run_exists';
  constructor(taskId: string, runId: string, runStatus: string) {
    super('active_run_exists', {
      message: `task ${taskId} already has the live workflow run ${runId} (${runStatus}); the workflow allows one live run per task`,
      run_id: runId,
    });
  }
}

/*
 * Spec 02's actions, budgets and cost analytics fix their answer bodies exactly (no `code`), so
 * these errors override body(). A degraded read is one of them although it answers 200: it is the
 * answer "the data is not available", not the use case's result.
 */

export type Unavailable = 'no_database' | 'query_failed';

/** A read or budget command without its data: 200 {available: false, reason, ...context}. */
export class DegradedError extends DomainError {
  readonly code = 'degraded';
  constructor(
    readonly reason: Unavailable,
    context: Record<string, unknown> = {},
  ) {
    super(`degraded: ${reason}`, context);
  }
  override body() {
    return { available: false, reason: this.reason, ...this.extra };
  }
}

/** Spec 02's validation answer: exactly {error: 'validation_failed', details[]} (400). */
export class ValidationFailedError extends ValidationError {
  constructor(cause: ValidationError) {
    super(cause.message, cause.details.length ? cause.details : [{ path: 'request', message: cause.message }]);
  }
  override body() {
    return { error: 'validation_failed', details: this.details };
  }
}

/** An action envelope that fails validation (kind, target, params): 400 {error: 'invalid_action', details}. */
export class InvalidActionError extends DomainError {
  readonly code = 'invalid_action';
  constructor(readonly details: ValidationIssue[]) {
    super('invalid_action', { details });
  }
  override body() {
    return { error: 'invalid_action', details: this.details };
  }
}

export type ActionRefusal = 'no_database' | 'receipts_unavailable' | 'query_failed';

/** Without durable receipts no action executes: 503 {available: false, reason}. */
export class ActionsUnavailableError extends DomainError {
  static override readonly traced = true;
  readonly code = 'actions_unavailable';
  constructor(readonly reason: ActionRefusal) {
    super(`actions unavailable: ${reason}`);
  }
  override body() {
    return { available: false, reason: this.reason };
  }
}

/** An actionId replayed with another intent (kind, target or params): 409 {error: 'stale_retry'}. */
export class StaleRetryError extends DomainError {
  readonly code = 'stale_retry';
  constructor() {
    super('stale_retry');
  }
  override body() {
    return { error: 'stale_retry' };
  }
}

/**
 * Governance refused the actor: 403 {error: 'rejected_governance', reason, …what the refusal carries}:
 * a governed action's receipt (spec 02), a run operation's missing roles and verdict (spec 03, "the
 * governance result as in document 2").
 */
export class GovernanceRejectedError extends DomainError {
  readonly code = 'rejected_governance';
  constructor(
    readonly reason: string | undefined,
    carried: Record<string, unknown>,
  ) {
    super('rejected_governance', carried);
  }
  override body() {
    return { error: 'rejected_governance', reason: this.reason, ...this.extra };
  }
}

/** A dispatch-class action over a blocking budget: 422 {error: 'budget_blocked', action, budgets}; no receipt. */
export class BudgetBlockedError extends DomainError {
  readonly code = 'budget_blocked';
  constructor(
    readonly action: string,
    readonly budgets: unknown[],
  ) {
    super('budget_blocked');
  }
  override body() {
    return { error: 'budget_blocked', action: this.action, budgets: this.budgets };
  }
}

/**
 * An action's backing operation failed, its failed receipt stored: {error: 'execution_failed',
 * message, receipt}, 404 when its target does not exist (code action_target_missing), else 400.
 */
export class ActionFailedError extends DomainError {
  readonly code: 'action_failed' | 'action_target_missing';
  constructor(
    message: string,
    readonly receipt: unknown,
    targetMissing: boolean,
  ) {
    super(message);
    this.code = targetMissing ? 'action_target_missing' : 'action_failed';
  }
  override body() {
    return { error: 'execution_failed', message: this.message, receipt: this.receipt };
  }
}

/** A second active budget for one (scope, scope_id, period): 409 naming the first. */
export class DuplicateActiveBudgetError extends DomainError {
  readonly code = 'duplicate_active_budget';
  constructor(readonly existingBudgetId: string) {
    super('duplicate_active_budget');
  }
  override body() {
    return {
      error: 'duplicate_active_budget',
      details: [{ path: 'scope', message: 'an active budget already exists for this scope, scope_id and period; deactivate it first' }],
      existing_budget_id: this.existingBudgetId,
    };
  }
}

/** No budget of that id (or not an id at all): 404 {available: false, reason: 'not_found'}. */
export class BudgetNotFoundError extends DomainError {
  readonly code = 'budget_not_found';
  constructor() {
    super('budget_not_found');
  }
  override body() {
    return { available: false, reason: 'not_found' };
  }
}
