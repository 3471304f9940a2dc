import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A stand-in task server that records every request and answers from a script. */
export async function recordingTaskServer(
  answer: (req: RecordedRequest) => { status: number; body: unknown } = () => ({ status: 200, body: {} }),
) {
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      requests.push(recorded);
      const reply = answer(recorded);
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    /** Requests other than telemetry posts. */
    toolRequests: () => requests.filter((r) => r.url !== '/api/mcp/telemetry'),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** dist/mcp.js as a child process, driven with raw lines on stdin. */
export function startMcpProcess(env: Record<string, string>) {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  if (!env.DASHBOARD_AUTH_TOKEN) delete childEnv.DASHBOARD_AUTH_TOKEN;
  if (!env.RUNTIME_MCP_MUTATIONS) delete childEnv.RUNTIME_MCP_MUTATIONS;
  const proc = spawn(process.execPath, [path.resolve('dist/mcp.js')], {
    env: childEnv,
    stdio: ['pipe', 'pipe', 'pipe'],
  }) as ChildProcessWithoutNullStreams;
  const frames: Array<Record<string, unknown>> = [];
  let stdout = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  proc.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  proc.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  createInterface({ input: proc.stdout }).on('line', (line) => {
    frames.push(JSON.parse(line) as Record<string, unknown>);
    for (const w of waiters) w();
  });
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));

  const waitForFrames = (predicate: () => boolean, timeoutMs = 10_000) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching frame; frames: ${JSON.stringify(frames)}`)), timeoutMs);
      const check = () => {
        if (predicate()) {
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        }
      };
      waiters.add(check);
      check();
    });

  return {
    proc,
    frames,
    exited,
    output: () => ({ stdout, stderr }),
    sendLine(line: string) {
      proc.stdin.write(`${line}\n`);
    },
    /** Sends a request and resolves with the frame answering its id. */
    async request(id: number, method: string, params?: unknown): Promise<Record<string, unknown>> {
      proc.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) })}\n`);
      await waitForFrames(() => frames.some((f) => f.id === id));
      return frames.find((f) => f.id === id)!;
    },
    waitForFrames,
    async stop() {
      proc.stdin.end();
      return exited;
    },
  };
}

/** The JSON payload of a tools/call result frame. */
export function toolPayload(frame: Record<string, unknown>): { payload: unknown; isError: boolean } {
  const result = frame.result as { content: Array<{ text: string }>; isError?: boolean };
  return { payload: JSON.parse(result.content[0]!.text), isError: result.isError === true };
}
