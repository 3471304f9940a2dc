/**
 * The CORS headers of every answer this process gives: the API through the middy stack, and what
 * answers outside it (the runner's own refusals, the event streams, the Lambda area router, the cron
 * manager). Any origin may call: the bearer token, not the origin, guards the API; a deployment that
 * wants fewer origins sets CORS_ORIGINS on API Gateway (docs/deploy-aws.md).
 */

/** On every answer. A browser client reads X-Ignored-Params, X-Request-Id and X-Audit-Search-Unsearched only when they are exposed. */
export const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'x-ignored-params, x-request-id, x-audit-search-unsearched',
};

/** The answer to a preflight (OPTIONS). */
export const CORS_PREFLIGHT_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-headers': 'Authorization, Content-Type, Last-Event-ID',
  'access-control-max-age': '600',
};
