import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';

/** What a handler answers the runner: a result, whose body may be streamed or already bytes (handlers/middleware/responses.ts). */
export type RunnerResult = APIGatewayProxyStructuredResultV2 & { bodyStream?: AsyncIterable<Uint8Array>; bodyBytes?: Uint8Array };

export type LambdaHttpHandler = (
  event: APIGatewayProxyEventV2,
  context: Context & { acceptsBodyStream?: boolean },
) => Promise<RunnerResult>;

const loaded = new Map<string, Promise<LambdaHttpHandler>>();

/**
 * Loads handlers/<name>.ts on first use. esbuild turns the template import into a bundled
 * map of every handler module, so dist/server.js needs no source tree.
 */
export function loadHandler(name: string): Promise<LambdaHttpHandler> {
  let pending = loaded.get(name);
  if (!pending) {
    pending = import(/* @vite-ignore */ `../../handlers/${name}.ts`).then((mod: { handler?: LambdaHttpHandler }) => {
      if (typeof mod.handler !== 'function') throw new Error(`handlers/${name}.ts exports no handler`);
      return mod.handler;
    });
    loaded.set(name, pending);
  }
  return pending;
}
