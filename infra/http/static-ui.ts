import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import type http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { DomainError, ForbiddenError, NotFoundError, ValidationError } from '../../core/errors';
import { errorAnswer } from '../../handlers/middleware/error-status';

/**
 * DASHBOARD_UI_DIR: a front end's static files served by the runner at `/`, so an operator runs a
 * browser client against this server from one address. Only GET and HEAD outside `/api/`; no
 * directory listing; a path that leaves the directory (`..`, encoded or not, or a symlink out) is
 * refused; a missing path without a file extension gets index.html (client-side routing), a missing
 * asset a 404.
 */
export interface StaticUi {
  handles(method: string, urlPath: string): boolean;
  serve(req: http.IncomingMessage, res: http.ServerResponse, urlPath: string): Promise<void>;
}

const contentTypes: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
  '.webmanifest': 'application/manifest+json',
};

export function contentTypeOf(file: string): string {
  return contentTypes[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

function refuse(res: http.ServerResponse, error: DomainError, headers: Readonly<Record<string, string>> = {}): void {
  const { status, body } = errorAnswer(error);
  res.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

async function fileAt(candidate: string): Promise<{ file: string; size: number } | undefined> {
  try {
    const info = await stat(candidate);
    if (info.isFile()) return { file: candidate, size: info.size };
    if (info.isDirectory()) return fileAt(path.join(candidate, 'index.html'));
  } catch {
    // missing or unreadable: the caller decides between the index fallback and a 404
  }
  return undefined;
}

/**
 * What a front end adds to the plain serving: headers on every answer (the console's security
 * headers) and the cache rule per file. Without it, files are cacheable for five minutes and the
 * HTML page never without revalidation.
 */
export interface StaticUiPolicy {
  headers?: Readonly<Record<string, string>>;
  cacheControl?(relativeFile: string, isHtml: boolean): string;
}

const defaultCacheControl = (_file: string, isHtml: boolean) => (isHtml ? 'no-cache' : 'public, max-age=300');

export async function staticUi(dir: string, policy: StaticUiPolicy = {}): Promise<StaticUi> {
  const cacheControl = policy.cacheControl ?? defaultCacheControl;
  const extra = policy.headers ?? {};
  const root = await realpath(dir);
  const inside = (p: string) => p === root || p.startsWith(`${root}${path.sep}`);
  return {
    handles: (method, urlPath) => (method === 'GET' || method === 'HEAD') && urlPath !== '/api' && !urlPath.startsWith('/api/'),
    async serve(req, res, urlPath) {
      let decoded: string;
      try {
        decoded = decodeURIComponent(urlPath);
      } catch {
        return refuse(
          res,
          new ValidationError('malformed percent-encoding in the path', [{ path: 'path', message: 'malformed percent-encoding' }]),
          extra,
        );
      }
      if (decoded.includes('\0') || decoded.split(/[\\/]/).includes('..'))
        return refuse(res, new ForbiddenError('the path leaves the front end directory'), extra);
      const requested = path.join(root, decoded);
      let found = await fileAt(requested);
      if (!found && !path.extname(decoded)) found = await fileAt(path.join(root, 'index.html'));
      if (!found) return refuse(res, new NotFoundError(`no file ${decoded}`), extra);
      const real = await realpath(found.file);
      if (!inside(real)) return refuse(res, new ForbiddenError('the path leaves the front end directory'), extra);
      const isHtml = contentTypeOf(real).startsWith('text/html');
      res.writeHead(200, {
        ...extra,
        'content-type': contentTypeOf(real),
        'content-length': String(found.size),
        'x-content-type-options': 'nosniff',
        // the page must pick up a new build at once; hashed assets may be cached
        'cache-control': cacheControl(path.relative(root, real), isHtml),
      });
      if (req.method === 'HEAD') {
        res.end();
        return;
      }
      await pipeline(createReadStream(real), res).catch(() => res.destroy());
    },
  };
}
