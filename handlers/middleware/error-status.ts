/** The one table from a domain error code to an HTTP status. */
export const statusByErrorCode: Readonly<Record<string, number>> = {
  validation_failed: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  upstream_failed: 502,
  runtime_failed: 502,
  storage_unavailable: 503,
};
