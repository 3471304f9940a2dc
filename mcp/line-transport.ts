import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** JSON-RPC 2.0 codes for lines that never become a request. */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;

/** The longest line read; a longer one is answered -32600 and skipped without being held in memory. */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;

type Id = string | number;
type FrameId = Id | null;

/** A request refused before it reaches the protocol layer: its code and one-line message. */
export interface Refusal {
  code: number;
  message: string;
}

export interface LineTransportOptions {
  maxLineBytes?: number;
  /** Checks a request's params before the SDK sees it (the SDK answers bad params with a zod dump). */
  checkRequest?: (method: string, params: unknown) => Refusal | undefined;
}

/**
 * Stdio transport, one JSON-RPC message per line. Unlike the SDK's own stdio transport:
 * - a line that is not JSON, or not a JSON-RPC message, is answered with an error frame (spec 03:
 *   the loop continues) instead of being dropped in silence;
 * - a batch array gets one -32600 frame per element (MCP 2025-06-18 dropped batching);
 * - a line above the cap is answered and discarded chunk by chunk, never buffered whole;
 * - at end of input the requests already read are answered before the transport closes, so
 *   `printf '…\n…' | node dist/mcp.js` runs every call it was given;
 * - an output that stops taking writes closes the transport, and the process exits 0.
 */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private closed = false;
  private inputEnded = false;
  private readonly unanswered = new Set<Id>();
  private readonly maxLineBytes: number;
  /** The current line's chunks, or null while an oversized line is being skipped. */
  private parts: Buffer[] | null = [];
  private partBytes = 0;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly options: LineTransportOptions = {},
  ) {
    this.maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
  }

  async start(): Promise<void> {
    this.input.on('data', (chunk: Buffer | string) => this.take(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    this.input.on('end', () => this.endOfInput());
    this.input.on('close', () => this.endOfInput());
    // an output that fails (its reader went away: EPIPE) can carry no answer any more: the session is
    // over, as at the end of input; unheard, the failure was an uncaught exception and a stack trace
    this.output.on('error', () => void this.close());
  }

  private take(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a, start); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      this.append(chunk.subarray(start, nl));
      this.finishLine();
      start = nl + 1;
    }
    if (start < chunk.length) this.append(chunk.subarray(start));
  }

  private append(piece: Buffer): void {
    if (this.parts === null || piece.length === 0) return;
    this.partBytes += piece.length;
    if (this.partBytes > this.maxLineBytes) {
      this.parts = null;
      return;
    }
    this.parts.push(piece);
  }

  private finishLine(): void {
    const parts = this.parts;
    this.parts = [];
    this.partBytes = 0;
    if (parts === null) {
      void this.sendError(null, INVALID_REQUEST, `Invalid Request: line longer than ${this.maxLineBytes} bytes; it was discarded`);
      return;
    }
    this.receive(Buffer.concat(parts).toString('utf8'));
  }

  private endOfInput(): void {
    if (this.inputEnded) return;
    this.inputEnded = true;
    if (this.parts === null || this.partBytes > 0) this.finishLine();
    this.closeWhenAnswered();
  }

  private closeWhenAnswered(): void {
    if (this.inputEnded && this.unanswered.size === 0) void this.close();
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
    if (Array.isArray(parsed)) {
      const reason = 'Invalid Request: JSON-RPC batches are not supported; send one message per line';
      if (parsed.length === 0) void this.sendError(null, INVALID_REQUEST, reason);
      for (const element of parsed) void this.sendError(idOf(element), INVALID_REQUEST, reason);
      return;
    }
    const id = idOf(parsed);
    const method = (parsed as { method?: unknown } | null)?.method;
    const refusal =
      id !== null && typeof method === 'string' ? this.options.checkRequest?.(method, (parsed as { params?: unknown }).params) : undefined;
    if (refusal) {
      void this.sendError(id, refusal.code, refusal.message);
      return;
    }
    const message = JSONRPCMessageSchema.safeParse(parsed);
    if (!message.success) {
      void this.sendError(id, INVALID_REQUEST, 'Invalid Request: not a JSON-RPC 2.0 message');
      return;
    }
    const frame = message.data as { id?: Id; method?: string };
    const isRequest = frame.id !== undefined && typeof frame.method === 'string';
    if (isRequest) this.unanswered.add(frame.id!);
    try {
      this.onmessage?.(message.data);
    } catch (err) {
      this.onerror?.(err as Error);
      if (isRequest) this.unanswered.delete(frame.id!);
      void this.sendError(id, -32603, 'Internal error');
    }
  }

  private sendError(id: FrameId, code: number, message: string): Promise<void> {
    return this.write({ jsonrpc: '2.0', id, error: { code, message } });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    await this.write(message);
    const frame = message as { id?: Id; method?: string };
    if (frame.id !== undefined && frame.method === undefined && this.unanswered.delete(frame.id)) this.closeWhenAnswered();
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
    this.input.pause();
    this.onclose?.();
  }
}

function idOf(value: unknown): FrameId {
  const id = (value as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}
