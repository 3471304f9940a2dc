import { DomainError } from '../../core/errors';

/** The one table from a domain error code to an HTTP status. */
export const statusByErrorCode: Readonly<Record<string, number>> = {
  validation_failed: 400,
  malformed_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  response_too_large: 413,
  header_too_large: 431,
  runtime_failed: 502,
  storage_unavailable: 503,
  secrets_unavailable: 503,
  // the runner's streams
  shutting_down: 503,
  too_many_stream_clients: 503,
  too_many_session_tails: 503,
  // agent runtime integration (spec 01)
  execution_failed: 500,
  rate_limited: 429,
  // snapshot and restore (spec 02)
  malformed_json: 400,
  invalid_manifest: 400,
  artifact_corrupt: 400,
  snapshot_not_found: 404,
  schema_too_new: 409,
  unique_clash: 409,
  restore_failed: 500,
  restore_in_progress: 409,
  snapshot_write_failed: 507,
  no_database: 503,
  // exactly-once runs, and one live run per task where the workflow asks for it
  idempotency_conflict: 409,
  active_run_exists: 409,
  // actions, budgets and cost analytics (spec 02's fixed bodies)
  degraded: 200,
  invalid_action: 400,
  actions_unavailable: 503,
  stale_retry: 409,
  rejected_governance: 403,
  budget_blocked: 422,
  action_failed: 400,
  action_target_missing: 404,
  duplicate_active_budget: 409,
  budget_not_found: 404,
};

/** What a bug answers: nothing of what failed inside, the request id to find it in the log. */
export function internalErrorBody(requestId?: string): Record<string, unknown> {
  return { error: 'internal server error', code: 'internal', ...(requestId ? { requestId } : {}) };
}

/**
 * The status and JSON body of any failure, by the one table: what the handlers' envelope answers,
 * and what every place answering outside it (the runner's refusals, the event streams, the session
 * tails, the cron manager, the static front end, the Lambda area router) writes. Only a bug, a
 * value that is not a DomainError, is a 500.
 */
export function errorAnswer(error: unknown, requestId?: string): { status: number; body: Record<string, unknown> } {
  if (error instanceof DomainError) return { status: statusByErrorCode[error.code] ?? 500, body: error.body() };
  return { status: 500, body: internalErrorBody(requestId) };
}
