import { open, stat } from 'node:fs/promises';
import type { IndexedTranscript, TranscriptIndexer } from '../../core/ports/runtime';

const CHUNK = 256 * 1024;
const LF = 0x0a;
const CR = 0x0d;

/** A line's bytes [start, end) of `bytes`, valid only during the call, and the file offset the line starts at. */
type LineVisitor = (bytes: Buffer, start: number, end: number, startOffset: number) => void;

/**
 * Splits bytes into lines exactly as node:readline does with crlfDelay Infinity (what
 * openTranscript yields): `\n`, `\r\n` and a lone `\r` each end a line; a last line without an
 * ending is a line; an ending at the very end adds no empty line. Feed chunks in order; each line
 * comes out as bytes with the offset it starts at. A line inside one chunk is handed as a view of
 * it; only the part of a line that continues into the next chunk is copied, so the caller may
 * reuse its chunk buffer.
 */
class LineSplitter {
  private parts: Buffer[] = [];
  private lineStart: number;
  private skipLf = false;

  constructor(
    start: number,
    private readonly emit: LineVisitor,
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
      if (this.parts.length === 0) {
        this.emit(chunk, from, at, this.lineStart);
      } else {
        this.parts.push(chunk.subarray(from, at));
        const line = Buffer.concat(this.parts);
        this.parts = [];
        this.emit(line, 0, line.length, this.lineStart);
      }
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
    if (from < chunk.length) this.parts.push(Buffer.from(chunk.subarray(from)));
  }

  /** The end of the input: a pending last line without an ending is a line. */
  end(): void {
    if (this.parts.some((p) => p.length > 0)) {
      const line = Buffer.concat(this.parts);
      this.emit(line, 0, line.length, this.lineStart);
    }
    this.parts = [];
  }
}

/** Calls `visit` for every line of bytes [from, to) of the file, with its start offset. */
async function splitRange(file: string, from: number, to: number, visit: LineVisitor): Promise<void> {
  const handle = await open(file, 'r');
  const size = Math.min(CHUNK, to - from);
  // two buffers: the next chunk is read while this one is split (~11 of ~58 ms of a cold 20 MB index waited on reads)
  const buffers = [Buffer.allocUnsafe(size), Buffer.allocUnsafe(size)];
  const readInto = (buffer: Buffer, at: number) => (at < to ? handle.read(buffer, 0, Math.min(size, to - at), at) : undefined);
  let reading = readInto(buffers[0]!, from);
  try {
    const splitter = new LineSplitter(from, visit);
    for (let at = from, next = 1; reading; next ^= 1) {
      const { bytesRead, buffer } = await reading;
      if (bytesRead === 0) break;
      const chunkAt = at;
      at += bytesRead;
      reading = readInto(buffers[next]!, at);
      splitter.feed(buffer.subarray(0, bytesRead), chunkAt);
    }
    splitter.end();
  } finally {
    // a read still in flight when splitting failed: the close waits for it, and its failure has nobody to tell
    await reading?.catch(() => undefined);
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
  index<State>(
    file: string,
    window: { size: number; mtimeMs: number; truncated: boolean; windowEnd: number },
    indexer: TranscriptIndexer<State>,
  ): Promise<IndexedTranscript<State>>;
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

  async function build<State>(
    file: string,
    window: Omit<Entry, 'offsets' | 'totalLines' | 'endsWithLf' | 'state'>,
    indexer: TranscriptIndexer<State>,
    previous: Entry | undefined,
  ): Promise<Entry> {
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
    await splitRange(file, grown ? previous.windowEnd : 0, window.windowEnd, (bytes, start, end, startOffset) => {
      offsets.push(startOffset);
      const lineNo = ++totalLines;
      if (!indexer.visitBytes?.(state, lineNo, bytes, start, end)) indexer.visit(state, lineNo, bytes.toString('utf8', start, end));
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
          await splitRange(file, offsets[first - 1]!, offsets[last]!, (bytes, start, end) =>
            lines.push(bytes.toString('utf8', start, end)),
          );
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
