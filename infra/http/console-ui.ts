import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { staticUi, type StaticUi } from './static-ui';

/**
 * The operator console (console/, bundled by `npm run build` into dist/console/) as the runner serves
 * it at `/` when DASHBOARD_UI_DIR names no other front end. Its files: index.html, config.json (the
 * runtime configuration: where the API is) and assets/ whose names carry a content hash.
 */

/** Where `npm run build` puts the console: beside dist/server.js, which is this module once bundled. */
export function consoleDirBesideServer(): string {
  return path.join(path.dirname(fileURLToPath(import.meta.url)), 'console');
}

/** The runtime configuration file beside index.html; `apiBaseUrl` empty means the console's own origin. */
export interface ConsoleConfig {
  apiBaseUrl: string;
}

/** The origin the console's config.json sends API calls to, when it is another than the console's own. */
export async function configuredApiOrigin(dir: string): Promise<string | undefined> {
  let parsed: Partial<ConsoleConfig>;
  try {
    parsed = JSON.parse(await readFile(path.join(dir, 'config.json'), 'utf8')) as Partial<ConsoleConfig>;
  } catch {
    return undefined; // no file or not JSON: the console falls back to its own origin as well
  }
  if (typeof parsed.apiBaseUrl !== 'string' || parsed.apiBaseUrl === '') return undefined;
  try {
    const url = new URL(parsed.apiBaseUrl);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined; // a relative base stays on the console's origin
  }
}

/**
 * The headers of every console answer. The policy allows no inline script or style (server data is
 * rendered as text, so an injected tag would have nothing to run), no framing, no <base>, and calls
 * only to the console's origin and the configured API origin.
 */
export function consoleSecurityHeaders(apiOrigin?: string): Record<string, string> {
  const connect = apiOrigin ? `'self' ${apiOrigin}` : "'self'";
  const policy = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src ${connect}`,
    "manifest-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
  return {
    'content-security-policy': policy,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
  };
}

/** Hashed assets never change under their name; the page and its configuration must be revalidated. */
export function consoleCacheControl(relativeFile: string): string {
  return relativeFile.startsWith(`assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache';
}

/** The console's files served with its headers, or undefined when `dir` holds no built console. */
export async function consoleUi(dir: string): Promise<StaticUi | undefined> {
  try {
    if (!(await stat(path.join(dir, 'index.html'))).isFile()) return undefined;
  } catch {
    return undefined;
  }
  return staticUi(dir, { headers: consoleSecurityHeaders(await configuredApiOrigin(dir)), cacheControl: consoleCacheControl });
}
