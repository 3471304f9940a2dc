import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { bearerTokenOf, claimOfBearer } from '../../core/auth/bearer-token';
import { DomainError, ForbiddenError, NotFoundError, UnauthorizedError } from '../../core/errors';
import { sendError, sendJson } from '../http/json-answer';
import { listScheduledJobs } from '../../core/runtime/scheduled-jobs';
import type { AppContext } from '../app-context';
import { isLoopbackHost } from '../config';
import { CORS_PREFLIGHT_HEADERS } from '../../handlers/middleware/cors';
import { logger } from '../logger';

/** The one route of the cron-manager server (spec 01 "Scheduled jobs", Authentication 8). */
export const CRON_ADMIN_JOBS_PATH = '/api/cron-admin/jobs';

export interface CronManagerOptions {
  ctx: AppContext;
  port: number;
  /** Always a loopback address: this is a local administration surface. */
  host?: string;
  /** DASHBOARD_AUTH_TOKEN; without one every request is refused (the token is required here). */
  authToken: string | undefined;
}

export interface CronManager {
  url: string;
  close(): Promise<void>;
}

/** `127.0.0.1:3878`, `localhost`, `[::1]:3878` → the host part, for the DNS-rebinding check. */
export function hostnameOf(hostHeader: string | undefined): string | undefined {
  if (!hostHeader) return undefined;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(hostHeader);
  if (bracketed) return bracketed[1];
  const plain = /^([^:]+)(?::\d+)?$/.exec(hostHeader);
  return plain?.[1];
}

/**
 * A separate small server listing scheduled jobs at GET /api/cron-admin/jobs. Checks, in order:
 * the Host header must name a loopback address (a page on another origin that rebinds its DNS
 * name to 127.0.0.1 still sends its own name), then the bearer token.
 */
export async function startCronManager(options: CronManagerOptions): Promise<CronManager> {
  const server = http.createServer((req, res) => {
    void (async () => {
      req.resume();
      const host = hostnameOf(req.headers.host);
      if (!host || !isLoopbackHost(host)) {
        return sendError(res, new ForbiddenError('the Host header must name a loopback address (127.0.0.1, localhost or ::1)'));
      }
      if (req.method === 'OPTIONS') {
        // a browser's preflight carries no token; without this answer it never sends the real request
        res.writeHead(204, { ...CORS_PREFLIGHT_HEADERS, 'access-control-allow-methods': 'GET, OPTIONS' });
        res.end();
        return;
      }
      if (!options.authToken) {
        return sendError(res, new UnauthorizedError('the cron manager requires DASHBOARD_AUTH_TOKEN to be configured'));
      }
      if (claimOfBearer(options.authToken, bearerTokenOf(req.headers.authorization)) !== 'operator') {
        return sendError(res, new UnauthorizedError('missing or invalid bearer token'));
      }
      const path = new URL(req.url ?? '/', 'http://cron-manager.local').pathname.replace(/\/+$/, '');
      if (path !== CRON_ADMIN_JOBS_PATH) return sendError(res, new NotFoundError(`no route for ${req.method} ${path || '/'}`));
      if (req.method !== 'GET') return sendError(res, new NotFoundError(`no route for ${req.method} ${path} (this path takes GET)`));
      try {
        const ctx = options.ctx;
        sendJson(res, 200, await listScheduledJobs(ctx.deps));
      } catch (err) {
        if (!(err instanceof DomainError)) logger().error('cron manager request failed', { error: err as Error });
        sendError(res, err);
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${address.address}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
