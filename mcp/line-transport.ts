import type { Readable, Writable } from 'node:stream';
import { createInterface, type Interface } from 'node:readline';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** JSON-RPC 2.0 codes for lines that never become a request. */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;

/**
 * Stdio transport, one JSON-RPC message per line. Unlike the SDK's own stdio transport, a line
 * that is not JSON, or not a JSON-RPC message, is answered with an error frame (spec 03: the
 * loop continues), instead of being dropped in silence.
 */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private lines?: Interface;
  private closed = false;

  constructor(private readonly input: Readable, private readonly output: Writable) {}

  async start(): Promise<void> {
    this.lines = createInterface({ input: this.input, crlfDelay: Infinity });
    this.lines.on('line', (line) => this.receive(line));
    this.lines.on('close', () => void this.close());
  }

  private receive(line: string): void {
    if (!line.trim()) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      void this.sendError(null, PARSE_ERROR, 'Parse error: the line is not valid JSON');
      return;
    }
    const message = JSONRPCMessageSchema.safeParse(parsed);
    if (!message.success) {
      const id = idOf(parsed);
      void this.sendError(id, INVALID_REQUEST, 'Invalid Request: not a JSON-RPC 2.0 message');
      return;
    }
    try {
      this.onmessage?.(message.data);
    } catch (err) {
      this.onerror?.(err as Error);
      void this.sendError(idOf(parsed), -32603, 'Internal error');
    }
  }

  private sendError(id: string | number | null, code: number, message: string): Promise<void> {
    return this.write({ jsonrpc: '2.0', id, error: { code, message } });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(message);
  }

  private write(frame: unknown): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      if (this.output.write(`${JSON.stringify(frame)}\n`)) resolve();
      else this.output.once('drain', () => resolve());
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.lines?.close();
    this.onclose?.();
  }
}

function idOf(value: unknown): string | number | null {
  const id = (value as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}
