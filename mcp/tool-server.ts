import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import type { TaskServerClient } from './task-server-client';
import { Telemetry } from './telemetry';
import { checkArguments } from './tool-arguments';
import { tools, type ToolResult } from './tools';

export const SERVER_INFO = { name: 'fleet-task-server-tools', version: '1.0.0' };

function toCallResult(result: ToolResult): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(result.payload) }], ...(result.isError ? { isError: true } : {}) };
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
      description: t.description,
      inputSchema: z.toJSONSchema(t.input, { io: 'input' }) as { type: 'object'; [k: string]: unknown },
      annotations: { readOnlyHint: !t.mutating },
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = byName.get(request.params.name);
    if (!tool) {
      return toCallResult({ isError: true, payload: { error: 'unknown_tool', message: `no tool ${request.params.name}; tools: ${listed.map((t) => t.name).join(', ')}` } });
    }
    if (tool.mutating && !mutations) {
      // Refused before anything leaves the process: no task-server request, no telemetry.
      return toCallResult({
        isError: true,
        payload: { error: 'mutations_disabled', message: `${tool.name} changes the dashboard; start the tool server with RUNTIME_MCP_MUTATIONS=1 to enable it` },
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
