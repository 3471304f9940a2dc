/**
 * The tool server's only way to the dashboard: HTTP to the task server with the operator's
 * bearer token (spec 03: it never reads the database and never mints credentials).
 * The token goes into the Authorization header and nowhere else.
 */
export type UpstreamReply =
  | { reached: true; status: number; body: unknown }
  | { reached: false; reason: string };

export interface TaskServerClient {
  request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<UpstreamReply>;
  /** Number of requests issued (tests count upstream calls through the task server; this is for diagnostics). */
  readonly baseUrl: string;
}

export function taskServerClient(options: { baseUrl: string; token?: string; timeoutMs?: number; fetchImpl?: typeof fetch }): TaskServerClient {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetchImpl ?? fetch;
  return {
    baseUrl: base,
    async request(method, path, body) {
      const headers: Record<string, string> = { accept: 'application/json' };
      if (options.token) headers.authorization = `Bearer ${options.token}`;
      if (body !== undefined) headers['content-type'] = 'application/json';
      try {
        const res = await doFetch(`${base}${path}`, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
        });
        const text = await res.text();
        let parsed: unknown = text;
        try {
          parsed = text ? JSON.parse(text) : null;
        } catch {
          // not JSON: keep the text
        }
        return { reached: true, status: res.status, body: parsed };
      } catch (err) {
        const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
        return { reached: false, reason: `no answer from the task server at ${base} (${cause})` };
      }
    },
  };
}
