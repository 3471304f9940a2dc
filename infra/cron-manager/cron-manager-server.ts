import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { bearerTokenOf, tokenMatches } from '../../core/auth/bearer-token';
import { DomainError } from '../../core/errors';
import { listScheduledJobs } from '../../core/runtime/scheduled-jobs';
import type { AppContext } from '../app-context';
import { isLoopbackHost } from '../config';
import { CORS_HEADERS, CORS_PREFLIGHT_HEADERS } from '../../handlers/middleware/cors';
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

function send(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...CORS_HEADERS });
  res.end(JSON.stringify(body));
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
        return send(res, 403, { error: 'the Host header must name a loopback address (127.0.0.1, localhost or ::1)', code: 'forbidden' });
      }
      if (req.method === 'OPTIONS') {
        // a browser's preflight carries no token; without this answer it never sends the real request
        res.writeHead(204, { ...CORS_PREFLIGHT_HEADERS, 'access-control-allow-methods': 'GET, OPTIONS' });
        res.end();
        return;
      }
      if (!options.authToken) {
        return send(res, 401, { error: 'the cron manager requires DASHBOARD_AUTH_TOKEN to be configured', code: 'unauthorized' });
      }
      if (!tokenMatches(options.authToken, bearerTokenOf(req.headers.authorization))) {
        return send(res, 401, { error: 'missing or invalid bearer token', code: 'unauthorized' });
      }
      const path = new URL(req.url ?? '/', 'http://cron-manager.local').pathname.replace(/\/+$/, '');
      if (path !== CRON_ADMIN_JOBS_PATH) return send(res, 404, { error: `no route for ${req.method} ${path || '/'}`, code: 'not_found' });
      if (req.method !== 'GET') return send(res, 404, { error: `no route for ${req.method} ${path} (this path takes GET)`, code: 'not_found' });
      try {
        const ctx = options.ctx;
        send(res, 200, await listScheduledJobs(ctx.deps));
      } catch (err) {
        if (err instanceof DomainError) return send(res, 502, { error: err.message, code: err.code });
        logger().error('cron manager request failed', { error: err as Error });
        send(res, 500, { error: 'internal server error', code: 'internal' });
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
