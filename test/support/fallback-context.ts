import { createAppContext, setAppContext, type AppContext } from '../../infra/app-context';
import { config, resetConfig } from '../../infra/config';
import { freePort } from './free-port';
import type { TestApp } from './test-app';

/**
 * A second context of this process whose DATABASE_URL names the test database on a port where
 * nothing answers (`port`, or a free one): it starts in read-only fallback mode on the test app's
 * DATA_DIR, and becomes the process's context, so `app.call` and `app.http` go through it. The
 * caller closes it before the app.
 */
export async function startFallbackContext(app: TestApp, options: { reconnectIntervalMs: number; port?: number }): Promise<AppContext> {
  const unreachable = new URL(app.databaseUrl);
  unreachable.port = String(options.port ?? (await freePort()));
  process.env.DATABASE_URL = unreachable.toString();
  resetConfig();
  const ctx = await createAppContext(config(), { reconnectIntervalMs: options.reconnectIntervalMs });
  setAppContext(ctx);
  return ctx;
}
