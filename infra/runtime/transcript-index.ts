import { open, stat } from 'node:fs/promises';
import type { IndexedTranscript, TranscriptIndexer } from '../../core/ports/runtime';

const CHUNK = 256 * 1024;
const LF = 0x0a;
const CR = 0x0d;

/**
 * Splits bytes into lines exactly as node:readline does with crlfDelay Infinity (what
 * openTranscript yields): `\n`, `\r\n` and a lone `\r` each end a line; a last line without an
 * ending is a line; an ending at the very end adds no empty line. Feed chunks in order; each line
 * comes out with the byte offset it starts at.
 */
class LineSplitter {
  private parts: Buffer[] = [];
  private lineStart: number;
  private skipLf = false;

  constructor(
    start: number,
    private readonly emit: (text: string, startOffset: number) => void,
  ) {
    this.lineStart = start;
  }

  feed(chunk: Buffer, chunkStart: number): void {
    let from = 0;
    if (this.skipLf) {
      this.skipLf = false;
      if (chunk[0] === LF) {
        from = 1;
        this.lineStart = chunkStart + 1;
      }
    }
    // the next \n and \r, found by the native search rather than byte by byte
    let lf = chunk.indexOf(LF, from);
    let cr = chunk.indexOf(CR, from);
    while (lf !== -1 || cr !== -1) {
      const at = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      this.parts.push(chunk.subarray(from, at));
      this.emit(this.take(), this.lineStart);
      let next = at + 1;
      if (chunk[at] === CR) {
        if (next < chunk.length) {
          if (chunk[next] === LF) next++;
        } else {
          this.skipLf = true;
        }
      }
      from = next;
      this.lineStart = chunkStart + next;
      if (lf !== -1 && lf < from) lf = chunk.indexOf(LF, from);
      if (cr !== -1 && cr < from) cr = chunk.indexOf(CR, from);
    }
    if (from < chunk.length) this.parts.push(chunk.subarray(from));
  }

  /** The end of the input: a pending last line without an ending is a line. */
  end(): void {
    if (this.parts.some((p) => p.length > 0)) this.emit(this.take(), this.lineStart);
    this.parts = [];
  }

  private take(): string {
    const text = this.parts.length === 1 ? this.parts[0]!.toString('utf8') : Buffer.concat(this.parts).toString('utf8');
    this.parts = [];
    return text;
  }
}

/** Calls `visit` for every line of bytes [from, to) of the file, with its start offset. */
async function splitRange(file: string, from: number, to: number, visit: (text: string, startOffset: number) => void): Promise<void> {
  const handle = await open(file, 'r');
  try {
    const splitter = new LineSplitter(from, visit);
    for (let at = from; at < to; ) {
      // a buffer per chunk: the splitter keeps slices of a line that continues into the next one
      const buffer = Buffer.allocUnsafe(Math.min(CHUNK, to - at));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, at);
      if (bytesRead === 0) break;
      splitter.feed(buffer.subarray(0, bytesRead), at);
      at += bytesRead;
    }
    splitter.end();
  } finally {
    await handle.close();
  }
}

interface Entry {
  size: number;
  mtimeMs: number;
  truncated: boolean;
  windowEnd: number;
  /** offsets[i] is where line i + 1 starts; offsets[totalLines] is windowEnd. */
  offsets: number[];
  totalLines: number;
  /** The window ends with `\n` (or is empty): appended bytes start a new line. */
  endsWithLf: boolean;
  state: unknown;
}

export interface TranscriptIndexCache {
  index<State>(file: string, window: { size: number; mtimeMs: number; truncated: boolean; windowEnd: number }, indexer: TranscriptIndexer<State>): Promise<IndexedTranscript<State>>;
}

/**
 * The adapter's cache of transcript indexes (at most `maxEntries` files, least recently used
 * first out). One build per file and indexer at a time: concurrent requests wait for it.
 */
export function transcriptIndexCache(maxEntries = 32): TranscriptIndexCache {
  const entries = new Map<string, Entry>();
  const building = new Map<string, Promise<Entry>>();

  async function lastByteIs(file: string, at: number, byte: number): Promise<boolean> {
    const handle = await open(file, 'r');
    try {
      const one = Buffer.alloc(1);
      const { bytesRead } = await handle.read(one, 0, 1, at);
      return bytesRead === 1 && one[0] === byte;
    } finally {
      await handle.close();
    }
  }

  async function build<State>(file: string, window: Omit<Entry, 'offsets' | 'totalLines' | 'endsWithLf' | 'state'>, indexer: TranscriptIndexer<State>, previous: Entry | undefined): Promise<Entry> {
    // append-only growth of a file read to its end: visit only what was added
    const grown =
      previous &&
      !previous.truncated &&
      !window.truncated &&
      previous.endsWithLf &&
      window.windowEnd > previous.windowEnd &&
      (previous.windowEnd === 0 || (await lastByteIs(file, previous.windowEnd - 1, LF)));
    const offsets = grown ? previous.offsets.slice(0, previous.totalLines) : [];
    const state = grown ? (previous.state as State) : indexer.start();
    let totalLines = grown ? previous.totalLines : 0;
    await splitRange(file, grown ? previous.windowEnd : 0, window.windowEnd, (text, start) => {
      offsets.push(start);
      indexer.visit(state, ++totalLines, text);
    });
    offsets.push(window.windowEnd);
    const endsWithLf = window.windowEnd === 0 || (await lastByteIs(file, window.windowEnd - 1, LF));
    return { ...window, offsets, totalLines, endsWithLf, state };
  }

  return {
    async index(file, window, indexer) {
      const key = `${indexer.name}\u0000${file}`;
      for (;;) {
        const pending = building.get(key);
        if (!pending) break;
        await pending.catch(() => undefined);
      }
      let entry = entries.get(key);
      if (!entry || entry.size !== window.size || entry.mtimeMs !== window.mtimeMs || entry.windowEnd !== window.windowEnd) {
        const made = build(file, window, indexer, entry);
        building.set(key, made);
        try {
          entry = await made;
        } catch (err) {
          // a growth visit that failed half-way has changed the cached state: never use it again
          entries.delete(key);
          throw err;
        } finally {
          building.delete(key);
        }
      }
      entries.delete(key);
      entries.set(key, entry);
      while (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
      const { offsets, totalLines } = entry;
      return {
        state: entry.state as ReturnType<typeof indexer.start>,
        totalLines,
        truncated: entry.truncated,
        async readLines(from, to) {
          const first = Math.max(1, from);
          const last = Math.min(totalLines, to);
          if (first > last) return [];
          const lines: string[] = [];
          await splitRange(file, offsets[first - 1]!, offsets[last]!, (text) => lines.push(text));
          return lines;
        },
      };
    },
  };
}

/** The size and modification time of a file, or undefined when it is not a regular file. */
export async function fileVersion(file: string): Promise<{ size: number; mtimeMs: number } | undefined> {
  const info = await stat(file);
  return info.isFile() ? { size: info.size, mtimeMs: info.mtimeMs } : undefined;
}
