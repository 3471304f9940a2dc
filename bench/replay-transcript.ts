import { execFileSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sessionEventDetail, sessionEvents } from '../core/runtime/session-events';
import type { Runtime } from '../core/ports';
import { runtimeStateFiles } from '../infra/runtime/state-files';
import { report, seconds } from './support';

/**
 * Replay of a large transcript (default 20 MB, BENCH_REPLAY_MB): the first read of the file (which
 * builds its index), then warm: the first page, a deep page
 * (afterLine near the end) and the event detail of a line near the end, each as the median
 * latency over repeated runs, with the peak RSS growth while it ran. Baseline: `wc -l` of the
 * same file, the floor for anything that has to look at every byte.
 */
const MB = 1024 * 1024;
const sizeMb = Number(process.env.BENCH_REPLAY_MB ?? 20);

async function writeTranscript(file: string, bytes: number): Promise<number> {
  const out = createWriteStream(file);
  let written = 0;
  let line = 0;
  const write = (text: string) => new Promise<void>((resolve) => (out.write(text) ? resolve() : out.once('drain', resolve)));
  await write(`${JSON.stringify({ type: 'session', id: 'bench', timestamp: '2026-11-01T00:00:00Z', cwd: '/' })}\n`);
  while (written < bytes - 2048) {
    line++;
    const entries = [
      { type: 'message', message: { role: 'user', content: `request ${line}: ${'lorem ipsum '.repeat(20)}` } },
      {
        type: 'message',
        message: {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'plan '.repeat(30) },
            { type: 'toolCall', id: `c${line}`, name: 'exec', arguments: { command: 'ls' } },
          ],
        },
      },
      {
        type: 'message',
        message: {
          role: 'toolResult',
          toolCallId: `c${line}`,
          toolName: 'exec',
          content: [{ type: 'text', text: 'file\n'.repeat(80) }],
          details: { status: 'completed', exitCode: 0, durationMs: 3 },
        },
      },
    ];
    const text = `${entries.map((e) => JSON.stringify(e)).join('\n')}\n`;
    written += Buffer.byteLength(text);
    await write(text);
  }
  await new Promise<void>((resolve) => out.end(resolve));
  return written;
}

/** Median milliseconds of `work` over repeated runs (at least 3, at most BENCH_SECONDS of work), and peak RSS growth. */
async function measure(work: () => Promise<unknown>): Promise<{ ms: number; peakMb: number }> {
  const times: number[] = [];
  const base = process.memoryUsage().rss;
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const deadline = performance.now() + seconds * 1000;
  while (times.length < 3 || (performance.now() < deadline && times.length < 50)) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)]!, peakMb: (peak - base) / MB };
}

export async function run(): Promise<void> {
  const stateDir = await mkdtemp(path.join(os.tmpdir(), 'bench-replay-'));
  try {
    const sessions = path.join(stateDir, 'agents', 'main', 'sessions');
    await mkdir(sessions, { recursive: true });
    await writeFile(path.join(sessions, 'sessions.json'), '{}');
    const file = path.join(sessions, 'big.jsonl');
    const bytes = await writeTranscript(file, sizeMb * MB);
    const cap = Math.max(bytes + 1, 20 * MB);
    const runtime: Runtime = { stateDir, run: async () => ({}), files: runtimeStateFiles(stateDir, cap) };
    const deps = { runtime };
    // a new adapter has an empty index cache: its first read of the file builds the index
    const coldDeps = () => ({ runtime: { ...runtime, files: runtimeStateFiles(stateDir, cap) } });
    const wc = await measure(async () => execFileSync('wc', ['-l', file]));
    const totalLines = Number(execFileSync('wc', ['-l', file]).toString().trim().split(/\s+/)[0]);
    const label = `${(bytes / MB).toFixed(0)} MB, ${totalLines} lines`;
    console.log(`replay of a ${label} transcript; baseline: wc -l ${wc.ms.toFixed(1)} ms`);

    const cold = await measure(() => sessionEvents(coldDeps(), 'big', { limit: '50' }));
    report('replay first page, cold (first read of the file)', cold.ms, wc.ms, 'ms', `peak rss +${cold.peakMb.toFixed(0)} MB`);
    const first = await measure(() => sessionEvents(deps, 'big', { limit: '50' }));
    report('replay first page (limit 50)', first.ms, wc.ms, 'ms', `peak rss +${first.peakMb.toFixed(0)} MB`);
    const deep = await measure(() => sessionEvents(deps, 'big', { afterLine: String(totalLines - 60), limit: '50' }));
    report('replay deep page (afterLine = end - 60)', deep.ms, wc.ms, 'ms', `peak rss +${deep.peakMb.toFixed(0)} MB`);
    const detail = await measure(() => sessionEventDetail(deps, 'big', String(totalLines - 10), {}));
    report('replay event detail (line = end - 10)', detail.ms, wc.ms, 'ms', `peak rss +${detail.peakMb.toFixed(0)} MB`);
  } finally {
    await rm(stateDir, { recursive: true, force: true });
  }
}
