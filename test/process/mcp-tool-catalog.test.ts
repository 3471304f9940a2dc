import path from 'node:path';
import { spawn } from 'node:child_process';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskStatuses } from '../../core/tasks/task';
import { summaryTaskFields } from '../../mcp/tools';
import { recordingTaskServer, startMcpProcess } from '../support/mcp-process';

/** What an agent client reads from tools/list: every parameter explained, enums spelled out, hints and result shapes. */
let upstream: Awaited<ReturnType<typeof recordingTaskServer>>;
beforeAll(async () => {
  upstream = await recordingTaskServer();
});
afterAll(async () => upstream.close());

interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: { properties: Record<string, { description?: string; enum?: string[]; [k: string]: unknown }> };
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, boolean>;
}

async function listTools(mutations: boolean): Promise<{ tools: ListedTool[]; bytes: number }> {
  const m = startMcpProcess({ TASK_SERVER_URL: upstream.url, ...(mutations ? { RUNTIME_MCP_MUTATIONS: '1' } : {}) });
  try {
    const frame = await m.request(1, 'tools/list');
    return { tools: (frame.result as { tools: ListedTool[] }).tools, bytes: Buffer.byteLength(JSON.stringify(frame)) };
  } finally {
    await m.stop();
  }
}

describe('MCP tool catalog as an agent reads it', () => {
  it('describes every parameter, titles every tool, and gives each an output schema and the read-only, destructive and idempotent hints', async () => {
    const { tools } = await listTools(true);
    expect(tools).toHaveLength(13);
    for (const tool of tools) {
      expect(tool.title, tool.name).toMatch(/\w/);
      expect(tool.description, tool.name).toMatch(/\w/);
      for (const [param, schema] of Object.entries(tool.inputSchema.properties))
        expect(schema.description, `${tool.name}.${param}`).toMatch(/\w/);
      expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object' });
      // left at MCP's default (docs/mcp.md: the bytes go to keeping tools/list under 8 KB)
      expect(tool.annotations, tool.name).not.toHaveProperty('openWorldHint');
    }
    const hints = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    expect(hints.list_tasks).toEqual({ readOnlyHint: true });
    expect(hints.create_task).toEqual({ readOnlyHint: false, destructiveHint: false });
    expect(hints.update_task).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    expect(hints.create_snapshot).toEqual({ readOnlyHint: false, destructiveHint: false });
  });

  it('spells enumerations out: list_tasks.status as create_task.status, update_task.patch field names, search_audit filters', async () => {
    const { tools } = await listTools(true);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t.inputSchema.properties]));
    expect(byName.list_tasks!.status!.enum).toEqual([...taskStatuses]);
    expect(byName.create_task!.status!.enum).toEqual([...taskStatuses]);
    expect((byName.update_task!.patch!.propertyNames as { enum: string[] }).enum).toEqual(
      expect.arrayContaining(['title', 'status', 'priority', 'owner', 'labels', 'metadata']),
    );
    // field names are checked by the server, which lists them in its refusal; the default is named here
    expect(byName.list_tasks!.fields!.description).toContain(summaryTaskFields.join(', '));
    expect(Object.keys(byName.search_audit!)).toEqual([
      'q',
      'actor',
      'action',
      'task_id',
      'start_date',
      'end_date',
      'entity_type',
      'governance_only',
      'limit',
      'offset',
    ]);
  });

  it('keeps the tools/list answer under 8 KB, read-only and with RUNTIME_MCP_MUTATIONS=1', async () => {
    const readOnly = await listTools(false);
    expect(readOnly.tools).toHaveLength(10);
    expect(readOnly.bytes).toBeLessThan(8 * 1024);
    const all = await listTools(true);
    expect(all.tools).toHaveLength(13);
    expect(all.bytes).toBeLessThan(8 * 1024);
  });

  it('has input and output schemas that a strict ajv compiles', async () => {
    const { tools } = await listTools(true);
    const ajv = new Ajv({ strict: true, allErrors: true, validateFormats: false });
    for (const tool of tools) {
      expect(() => ajv.compile(tool.inputSchema), `${tool.name} input`).not.toThrow();
      expect(() => ajv.compile(tool.outputSchema!), `${tool.name} output`).not.toThrow();
    }
  });

  it('starts through the package bin: `fleet-task-server mcp` answers initialize', async () => {
    const proc = spawn(process.execPath, [path.resolve('bin/fleet-task-server.mjs'), 'mcp'], {
      env: { PATH: process.env.PATH ?? '', TASK_SERVER_URL: upstream.url },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((r) => proc.on('exit', r));
    proc.stdin.end(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'npx', version: '1' } } })}\n`,
    );
    expect(await exited).toBe(0);
    expect(JSON.parse(out.trim())).toMatchObject({ id: 1, result: { serverInfo: { name: 'fleet-task-server-tools' } } });
  });
});
