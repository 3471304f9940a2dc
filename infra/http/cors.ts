/** The CORS preflight answer of every server this process runs (the API runner and the cron manager). */
export const CORS_PREFLIGHT_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-headers': 'Authorization, Content-Type, Last-Event-ID',
  'access-control-max-age': '600',
};
