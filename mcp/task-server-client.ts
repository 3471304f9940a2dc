import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './task-server-paths';

/**
 * The tool server's only way to the dashboard: HTTP to the task server with the operator's
 * bearer token (spec 03: it never reads the database and never mints credentials).
 * The token goes into the Authorization header and nowhere else.
 *
 * Calls go through openapi-fetch typed by mcp/task-server-paths.ts, which openapi-typescript
 * generates from the server's own OpenAPI document (`npm run api:types`, run by typecheck and
 * build): a path, path parameter, query parameter or body the server does not have is a compile error.
 */
export type UpstreamReply = { reached: true; status: number; body: unknown } | { reached: false; reason: string };

export type TaskServerApi = Client<paths>;

export interface TaskServerClient {
  /** The typed calls; pass each one's promise to `reply`. */
  readonly api: TaskServerApi;
  readonly baseUrl: string;
  /** What a tool acts on: the status and the body (JSON when it parses, else the text), or why nothing answered. */
  reply(call: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<UpstreamReply>;
}

export function taskServerClient(options: {
  baseUrl: string;
  token?: string;
  timeoutMs?: number;
  fetchImpl?: typeof fetch;
}): TaskServerClient {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetchImpl ?? fetch;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const api = createClient<paths>({
    baseUrl: base,
    headers: { accept: 'application/json', ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) },
    fetch: async (request: Request) => textAsJson(await doFetch(request, { signal: AbortSignal.timeout(timeoutMs) })),
  });
  return {
    api,
    baseUrl: base,
    async reply(call) {
      try {
        const { data, error, response } = await call;
        // openapi-fetch parsed the body: JSON, or (an error body that is not JSON) its text
        return { reached: true, status: response.status, body: (response.ok ? data : error) ?? null };
      } catch (err) {
        const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
        return { reached: false, reason: `no answer from the task server at ${base} (${cause})` };
      }
    },
  };
}

/**
 * openapi-fetch parses every success body as JSON and throws on anything else; a success answered
 * in another type (a proxy's page) reaches the tool as its text instead, as a JSON string.
 */
async function textAsJson(response: Response): Promise<Response> {
  if (!response.ok || response.status === 204 || (response.headers.get('content-type') ?? '').includes('json')) return response;
  const text = await response.text();
  return new Response(JSON.stringify(text), {
    status: response.status,
    statusText: response.statusText,
    headers: { 'content-type': 'application/json' },
  });
}
