/** The one table from a domain error code to an HTTP status. */
export const statusByErrorCode: Readonly<Record<string, number>> = {
  validation_failed: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  response_too_large: 413,
  upstream_failed: 502,
  runtime_failed: 502,
  storage_unavailable: 503,
  secrets_unavailable: 503,
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
  no_database: 503,
};
