import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createParser } from 'eventsource-parser';
import type { Runtime } from '../core/ports';
import { SessionTails } from '../infra/events/session-tails';
import { STREAM_SETTING_DEFAULTS } from '../infra/events/stream-settings';
import { runtimeStateFiles } from '../infra/runtime/state-files';
import { report } from './support';

/**
 * Live tails of a session transcript, the files way (docs/adr/0012-live-tails-of-runtime-sessions.md):
 * BENCH_TAILS (50) clients follow one transcript of BENCH_TAIL_LINES (20,000) lines through
 * infra/events/session-tails.ts behind a bare node:http server in this process, while
 * BENCH_TAIL_APPENDS (200) lines are appended, one every 20 ms. Figure: p50 and p99 ms from the
 * append to the frame parsed by each client. Baseline: one bare fs.watch on the same file that reads
 * the appended bytes when it fires, the floor for anything woken by the file system.
 */
const tailCount = Number(process.env.BENCH_TAILS ?? 50);
const lineCount = Number(process.env.BENCH_TAIL_LINES ?? 20_000);
const appendCount = Number(process.env.BENCH_TAIL_APPENDS ?? 200);
const APPEND_EVERY_MS = 20;

const lineOf = (i: number) =>
  `${JSON.stringify({ type: 'message', timestamp: new Date(1_795_800_000_000 + i * 1000).toISOString(), message: { role: i % 2 ? 'assistant' : 'user', content: [{ type: 'text', text: `line ${i} ${'lorem ipsum '.repeat(20)}` }] } })}\n`;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;

export async function run(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-tail-'));
  const sessions = path.join(dir, 'agents', 'main', 'sessions');
  mkdirSync(sessions, { recursive: true });
  const file = path.join(sessions, 'bench-session.jsonl');
  writeFileSync(file, Array.from({ length: lineCount }, (_, i) => lineOf(i)).join(''));
  const runtime: Runtime = { stateDir: dir, run: async () => ({}), files: runtimeStateFiles(dir, 64 * 1024 * 1024) };
  const tails = new SessionTails({ deps: { runtime } as never }, { retryMs: 2000, maxBufferedBytes: 1024 * 1024 });
  const settings = { ...STREAM_SETTING_DEFAULTS, maxSessionTails: tailCount };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://bench');
    void tails.serve(req, res, { url, requestId: 'bench', pathParameters: { sessionId: 'bench-session' } }, settings);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/?afterLine=${lineCount}`;
  const appendedAt = new Map<number, number>();
  const latencies: number[] = [];
  const requests: http.ClientRequest[] = [];
  try {
    await Promise.all(
      Array.from(
        { length: tailCount },
        () =>
          new Promise<void>((resolve, reject) => {
            const req = http.get(url, (res) => {
              const parser = createParser({
                onEvent: (e) => latencies.push(performance.now() - (appendedAt.get(Number(e.id)) ?? Number.NaN)),
              });
              res.setEncoding('utf8');
              res.on('data', (chunk: string) => parser.feed(chunk));
              resolve();
            });
            req.on('error', reject);
            requests.push(req);
          }),
      ),
    );
    // the bare floor: one watcher that reads what was appended when it fires
    const bare: number[] = [];
    let size = readFileSync(file).length;
    let bareLine = lineCount;
    const watcher = watch(file, () => {
      const text = readFileSync(file).subarray(size);
      size += text.length;
      for (const _ of text.toString('utf8').split('\n').slice(0, -1))
        bare.push(performance.now() - (appendedAt.get(++bareLine) ?? Number.NaN));
    });
    for (let i = 1; i <= appendCount; i++) {
      appendedAt.set(lineCount + i, performance.now());
      appendFileSync(file, lineOf(lineCount + i));
      await new Promise((r) => setTimeout(r, APPEND_EVERY_MS));
    }
    const deadline = Date.now() + 10_000;
    while (latencies.length < tailCount * appendCount && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    watcher.close();
    latencies.sort((a, b) => a - b);
    bare.sort((a, b) => a - b);
    console.log(
      `session tails (files): ${tailCount} tails of a ${lineCount}-line transcript, ${appendCount} lines appended every ${APPEND_EVERY_MS} ms; frames received ${latencies.length} of ${tailCount * appendCount}`,
    );
    report(
      'tail latency p50 (append → frame parsed)',
      percentile(latencies, 0.5) * 1000,
      percentile(bare, 0.5) * 1000,
      'µs',
      'baseline: a bare fs.watch reading the appended bytes',
    );
    report('tail latency p99', percentile(latencies, 0.99) * 1000, percentile(bare, 0.99) * 1000, 'µs');
  } finally {
    for (const req of requests) req.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  }
}
