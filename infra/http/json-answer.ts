import type http from 'node:http';
import { CORS_HEADERS } from '../../handlers/middleware/cors';
import { errorAnswer } from '../../handlers/middleware/error-status';

/**
 * The JSON answers this process writes outside the handlers' middy stack (stream refusals, the cron
 * manager, the static front end): written whole, with the CORS headers, once (a response already
 * started or gone is left alone).
 */
export function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { ...CORS_HEADERS, 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}

/** A failure answered as the handlers answer it: status and body from the one error table. */
export function sendError(res: http.ServerResponse, error: unknown, headers: Record<string, string> = {}, requestId?: string): void {
  const { status, body } = errorAnswer(error, requestId);
  sendJson(res, status, body, headers);
}
