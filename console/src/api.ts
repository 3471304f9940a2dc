import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../../mcp/task-server-paths';
import { authorizationHeader, sessionRefused } from './session';

/**
 * The console's one way to the server: openapi-fetch typed by the paths openapi-typescript generates
 * from the server's OpenAPI document (`npm run api:types`, shared with mcp/), so a renamed field or
 * route is a compile error here. Every call carries the token; every 401 returns to sign-in.
 */
export type Api = Client<paths>;

let base = '';
let client: Api | undefined;
/** How many requests the console has made: the bench reads it to count requests per screen. */
let requests = 0;

export function connectApi(apiBaseUrl: string): void {
  base = apiBaseUrl;
  client = createClient<paths>({ baseUrl: apiBaseUrl });
  client.use({
    onRequest({ request }) {
      requests++;
      for (const [name, value] of Object.entries(authorizationHeader())) request.headers.set(name, value);
      return request;
    },
    onResponse({ response }) {
      if (response.status === 401) sessionRefused();
      return response;
    },
  });
}

export function api(): Api {
  if (!client) throw new Error('the API client is used before connectApi');
  return client;
}

/** The API's base URL ('' is the console's own origin), for the few calls outside openapi-fetch (the stream). */
export const apiBase = () => base;
export const requestCount = () => requests;

/** The text a failed call shows: the server's `error`, else its status. */
export function problemOf(error: unknown, response?: Response): string {
  if (error && typeof error === 'object' && 'error' in error && typeof (error as { error: unknown }).error === 'string') {
    const body = error as { error: string; message?: unknown };
    return typeof body.message === 'string' && body.message !== body.error ? `${body.error}: ${body.message}` : body.error;
  }
  if (typeof error === 'string' && error) return error;
  return response ? `the server answered ${response.status}` : 'the server did not answer';
}

/** Unwraps an openapi-fetch result: its data, or an Error carrying the server's message. */
export async function expectData<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await call;
  } catch {
    throw new Error('the server did not answer');
  }
  if (!result.response.ok) throw new Error(problemOf(result.error, result.response));
  return result.data as T;
}

/** A body for a route whose OpenAPI entry describes none yet (its handler validates it with zod all the same). */
export const undescribed = (body: Record<string, unknown>) => body as never;
