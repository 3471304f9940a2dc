import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { INVALID_PARAMS, type Refusal } from './line-transport';
import type { TaskServerClient } from './task-server-client';
import { Telemetry } from './telemetry';
import { checkArguments } from './tool-arguments';
import { tools, type ToolResult } from './tools';

export const SERVER_INFO = { name: 'fleet-task-server-tools', version: '1.0.0' };

function toCallResult(result: ToolResult): CallToolResult {
  const structured = !result.isError && isPlainObject(result.payload) ? { structuredContent: result.payload } : {};
  return { content: [{ type: 'text', text: JSON.stringify(result.payload) }], ...structured, ...(result.isError ? { isError: true } : {}) };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function jsonSchemaOf(schema: z.ZodType): { type: 'object'; [k: string]: unknown } {
  // clients validate with draft-07 ajv, which refuses an unknown $schema URI; the keywords used are common to both drafts
  const converted = z.toJSONSchema(schema, {
    io: 'input',
    // `format` says it; zod's long regex copies of the UUID and date formats would double tools/list
    override: ({ jsonSchema }) => {
      if (jsonSchema.format) delete jsonSchema.pattern;
      // the server checks lengths and names the limit in its refusal; saying it here costs tools/list bytes
      delete jsonSchema.maxLength;
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
    },
  });
  // unknown arguments are refused by the server with the legal names (tool-arguments.ts); not repeated in every schema
  const { $schema: _draft, additionalProperties: _closed, ...rest } = converted as { type: 'object'; [k: string]: unknown };
  return rest as { type: 'object'; [k: string]: unknown };
}

/**
 * The hints of MCP's annotations that say something here, each left out where it has MCP's default
 * value, so that tools/list stays under 8 KB with the mutating tools listed (docs/mcp.md): the
 * destructive and idempotent hints mean something only for tools that write; idempotentHint false is
 * the default; openWorldHint is left at its default (true, the cautious reading) rather than spend
 * 22 bytes a tool saying that every tool reaches only the dashboard.
 */
const annotationsByEffect = {
  read: { readOnlyHint: true },
  create: { readOnlyHint: false, destructiveHint: false },
  overwrite: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
} as const;

/**
 * tools/call params the SDK would answer with -32603 and a zod dump: refused here as -32602 with
 * one line saying what a call needs.
 */
export function checkToolCall(method: string, params: unknown): Refusal | undefined {
  if (method !== 'tools/call') return undefined;
  const p = params as { name?: unknown; arguments?: unknown } | undefined;
  if (!isPlainObject(p) || typeof p.name !== 'string' || !p.name) {
    return { code: INVALID_PARAMS, message: 'Invalid params: tools/call needs params.name, the tool name as a string' };
  }
  if (p.arguments !== undefined && !isPlainObject(p.arguments)) {
    return { code: INVALID_PARAMS, message: `Invalid params: arguments of ${p.name} must be an object` };
  }
  return undefined;
}

/**
 * The MCP tool server: tools/list and tools/call over the SDK's protocol handling (initialize,
 * ping, -32601 for other methods). Tools only; no resources, prompts or notifications.
 * Mutating tools exist only when `mutations` is on.
 */
export function createToolServer(options: { client: TaskServerClient; mutations: boolean }) {
  const { client, mutations } = options;
  const telemetry = new Telemetry(client);
  const listed = tools.filter((t) => mutations || !t.mutating);
  const byName = new Map(tools.map((t) => [t.name, t]));
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} } });

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: listed.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: jsonSchemaOf(t.input),
      outputSchema: t.output as { type: 'object'; [k: string]: unknown },
      annotations: annotationsByEffect[t.effect],
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = byName.get(request.params.name);
    if (!tool) {
      return toCallResult({
        isError: true,
        payload: { error: 'unknown_tool', message: `no tool ${request.params.name}; tools: ${listed.map((t) => t.name).join(', ')}` },
      });
    }
    if (tool.mutating && !mutations) {
      // Refused before anything leaves the process: no task-server request, no telemetry.
      return toCallResult({
        isError: true,
        payload: {
          error: 'mutations_disabled',
          message: `${tool.name} changes the dashboard; start the tool server with RUNTIME_MCP_MUTATIONS=1 to enable it`,
        },
      });
    }
    const started = performance.now();
    let result: ToolResult;
    const checked = checkArguments(tool.input, request.params.arguments);
    if (!checked.ok) {
      result = { isError: true, payload: { error: 'invalid_arguments', message: checked.message } };
    } else {
      try {
        result = await tool.run(checked.value as never, client);
      } catch (err) {
        result = { isError: true, payload: { error: 'tool_failed', message: (err as Error).message } };
      }
    }
    telemetry.record(tool.name, result.isError ? 'error' : 'ok', performance.now() - started);
    return toCallResult(result);
  });

  return { server, telemetry, listedTools: listed.map((t) => t.name) };
}
