import { createReadStream, watch, type FSWatcher } from 'node:fs';
import { open, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { RuntimeStateFiles, TranscriptStream, TranscriptWatch } from '../../core/ports/runtime';
import { fileVersion, transcriptIndexCache } from './transcript-index';

const NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const BACKWARD_CHUNK = 64 * 1024;
/**
 * A watched transcript is also re-read this often: fs.watch may miss a change (a file replaced by a
 * rename, a network file system, an exhausted inotify budget), and this bounds how late it is seen.
 */
export const TRANSCRIPT_WATCH_FALLBACK_MS = 5_000;

/**
 * Second line of defence behind the core's id validation: a name is one plain path segment,
 * and the joined path must still be inside the state directory.
 */
export function pathInside(root: string, ...segments: string[]): string {
  for (const s of segments) {
    if (!NAME.test(s) || s.includes('..')) throw new Error(`unsafe path segment ${JSON.stringify(s)}`);
  }
  const resolved = path.resolve(root, ...segments);
  const base = path.resolve(root);
  if (resolved !== base && !resolved.startsWith(base + path.sep)) throw new Error('path escapes the state directory');
  return resolved;
}

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * Where the readable window of a capped file ends: just after the last newline within the first
 * `cap` bytes, so a line cut by the cap is dropped instead of reported as malformed.
 * Reads backwards in small chunks; never the whole window.
 */
async function endOfLastCompleteLine(file: string, cap: number): Promise<number> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(BACKWARD_CHUNK);
    let end = cap;
    while (end > 0) {
      const start = Math.max(0, end - BACKWARD_CHUNK);
      const { bytesRead } = await handle.read(buffer, 0, end - start, start);
      const at = buffer.subarray(0, bytesRead).lastIndexOf(0x0a);
      if (at >= 0) return start + at + 1;
      end = start;
    }
    return 0;
  } finally {
    await handle.close();
  }
}

export function runtimeStateFiles(stateDir: string, maxBytes: number): RuntimeStateFiles {
  const agentsDir = path.resolve(stateDir, 'agents');
  const indexes = transcriptIndexCache();
  /** The readable window of a transcript: all of it, or up to the last complete line within the cap. */
  const windowOf = async (file: string) => {
    let version: { size: number; mtimeMs: number } | undefined;
    try {
      version = await fileVersion(file);
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
    if (!version) return undefined;
    const truncated = version.size > maxBytes;
    return { ...version, truncated, windowEnd: truncated ? await endOfLastCompleteLine(file, maxBytes) : version.size };
  };
  return {
    async listAgentIds() {
      try {
        const entries = await readdir(agentsDir, { withFileTypes: true });
        return entries.filter((e) => e.isDirectory() && NAME.test(e.name) && !e.name.includes('..')).map((e) => e.name);
      } catch (err) {
        if (isMissing(err)) return [];
        throw err;
      }
    },

    async readSessionIndex(agentId) {
      try {
        return await readFile(pathInside(agentsDir, agentId, 'sessions', 'sessions.json'), 'utf8');
      } catch (err) {
        if (isMissing(err)) return undefined;
        throw err;
      }
    },

    async openTranscript(agentId, sessionId): Promise<TranscriptStream | undefined> {
      const file = pathInside(agentsDir, agentId, 'sessions', `${sessionId}.jsonl`);
      const window = await windowOf(file);
      if (!window) return undefined;
      const { truncated, windowEnd } = window;
      if (windowEnd === 0) {
        return { lines: (async function* () {})(), truncated, close() {} };
      }
      const stream = createReadStream(file, { start: 0, end: windowEnd - 1, encoding: 'utf8', highWaterMark: 256 * 1024 });
      const reader = createInterface({ input: stream, crlfDelay: Infinity });
      return {
        lines: reader,
        truncated,
        close() {
          reader.close();
          stream.destroy();
        },
      };
    },

    async indexTranscript(agentId, sessionId, indexer) {
      const file = pathInside(agentsDir, agentId, 'sessions', `${sessionId}.jsonl`);
      const window = await windowOf(file);
      return window && indexes.index(file, window, indexer);
    },

    watchTranscript(agentId, sessionId, onChange) {
      return watchFile(pathInside(agentsDir, agentId, 'sessions', `${sessionId}.jsonl`), onChange);
    },
  };
}

/**
 * fs.watch on one transcript, plus the fallback re-read. A watcher that fails or sees the file
 * renamed away is dropped and made again at the next fallback tick (the runtime may have replaced
 * the file); every tick also calls onChange, so a change fs.watch missed is seen within the tick.
 */
function watchFile(file: string, onChange: () => void): TranscriptWatch {
  let watcher: FSWatcher | undefined;
  let stopped = false;
  const unwatch = () => {
    watcher?.close();
    watcher = undefined;
  };
  const rewatch = () => {
    if (stopped || watcher) return;
    try {
      watcher = watch(file, { persistent: false }, (kind) => {
        if (kind === 'rename') unwatch();
        onChange();
      });
      watcher.on('error', unwatch);
    } catch {
      watcher = undefined;
    }
  };
  rewatch();
  const fallback = setInterval(() => {
    rewatch();
    onChange();
  }, TRANSCRIPT_WATCH_FALLBACK_MS);
  fallback.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(fallback);
      unwatch();
    },
  };
}
