import { MalformedJsonError } from '../errors';
import { BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, COLON, COMMA, OPEN_ARRAY, OPEN_OBJECT, QUOTE } from '../json-bytes';
import type { ByteSource } from '../ports';

/**
 * A structural JSON scanner over a ByteSource: it finds where the members of an object and the
 * elements of an array begin and end without building them, so a 100 MB artifact is walked with
 * one 1 MB window in memory. Values the caller needs (a manifest, one row) are then parsed alone
 * with JSON.parse, which also validates their syntax.
 *
 * It works on UTF-8 bytes: every structural character is ASCII, and no byte of a multi-byte
 * UTF-8 sequence is below 0x80, so byte offsets are exact.
 */
const WINDOW = 1 << 20;

const isWhitespace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

const decoder = new TextDecoder('utf-8', { fatal: true });

export interface Span {
  start: number;
  end: number;
}

export class JsonScanner {
  private window: Uint8Array = new Uint8Array(0);
  private base = 0;

  constructor(readonly source: ByteSource) {}

  get size(): number {
    return this.source.size;
  }

  private fail(message: string, position: number): never {
    throw new MalformedJsonError(`${message} at byte ${position}`);
  }

  /** Makes `position` part of the window; false at the end of the source. */
  private async load(position: number): Promise<boolean> {
    if (position >= this.source.size) return false;
    if (position >= this.base && position < this.base + this.window.length) return true;
    this.window = await this.source.read(position, Math.min(WINDOW, this.source.size - position));
    this.base = position;
    return this.window.length > 0;
  }

  async byteAt(position: number): Promise<number> {
    if (!(await this.load(position))) this.fail('unexpected end of JSON', position);
    return this.window[position - this.base]!;
  }

  async skipWhitespace(position: number): Promise<number> {
    let pos = position;
    while (await this.load(pos)) {
      const w = this.window;
      let i = pos - this.base;
      while (i < w.length && isWhitespace(w[i]!)) i++;
      pos = this.base + i;
      if (i < w.length) return pos;
    }
    return pos;
  }

  /** The end (exclusive) of the JSON value starting at `position`. Inner syntax is checked when the value is parsed. */
  async skipValue(position: number): Promise<number> {
    const first = await this.byteAt(position);
    if (first !== QUOTE && first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
      // a scalar (number, true, false, null) runs until a delimiter
      let pos = position;
      while (await this.load(pos)) {
        const w = this.window;
        let i = pos - this.base;
        while (i < w.length) {
          const c = w[i]!;
          if (c === COMMA || c === CLOSE_ARRAY || c === CLOSE_OBJECT || isWhitespace(c)) return this.base + i;
          if (c === QUOTE || c === OPEN_ARRAY || c === OPEN_OBJECT || c === COLON) this.fail('unexpected character', this.base + i);
          i++;
        }
        pos = this.base + i;
      }
      return pos;
    }
    let depth = 0;
    let inString = false;
    let escaped = false;
    let pos = position;
    while (await this.load(pos)) {
      const w = this.window;
      for (let i = pos - this.base; i < w.length; i++) {
        const c = w[i]!;
        if (inString) {
          if (escaped) escaped = false;
          else if (c === BACKSLASH) escaped = true;
          else if (c === QUOTE) {
            inString = false;
            if (depth === 0) return this.base + i + 1;
          }
          continue;
        }
        if (c === QUOTE) inString = true;
        else if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
        else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
          depth--;
          if (depth === 0) return this.base + i + 1;
        }
      }
      pos = this.base + w.length;
    }
    return this.fail('unexpected end of JSON', pos);
  }

  async bytes(span: Span): Promise<Uint8Array> {
    if (span.start >= this.base && span.end <= this.base + this.window.length) {
      return this.window.subarray(span.start - this.base, span.end - this.base);
    }
    const out = new Uint8Array(span.end - span.start);
    let filled = 0;
    while (filled < out.length) {
      const chunk = await this.source.read(span.start + filled, out.length - filled);
      if (chunk.length === 0) this.fail('unexpected end of JSON', span.start + filled);
      out.set(chunk, filled);
      filled += chunk.length;
    }
    return out;
  }

  async text(span: Span): Promise<string> {
    try {
      return decoder.decode(await this.bytes(span));
    } catch (err) {
      if (err instanceof MalformedJsonError) throw err;
      return this.fail('invalid UTF-8', span.start);
    }
  }

  /** Parses the value in `span` (its own syntax is checked here). */
  async parse(span: Span): Promise<unknown> {
    const text = await this.text(span);
    try {
      return JSON.parse(text);
    } catch (err) {
      return this.fail(`invalid JSON value (${(err as Error).message})`, span.start);
    }
  }

  /**
   * Walks the members of the object at `position` in document order; `visit` returning false stops
   * the walk early. Returns the end of the object (or of the last member visited when stopped).
   */
  async members(position: number, visit: (key: string, value: Span) => Promise<boolean | void>): Promise<number> {
    if ((await this.byteAt(position)) !== OPEN_OBJECT) this.fail('expected an object', position);
    let pos = await this.skipWhitespace(position + 1);
    if ((await this.byteAt(pos)) === CLOSE_OBJECT) return pos + 1;
    for (;;) {
      if ((await this.byteAt(pos)) !== QUOTE) this.fail('expected a member name', pos);
      const keyEnd = await this.skipValue(pos);
      const key = (await this.parse({ start: pos, end: keyEnd })) as string;
      pos = await this.skipWhitespace(keyEnd);
      if ((await this.byteAt(pos)) !== COLON) this.fail('expected ":"', pos);
      const valueStart = await this.skipWhitespace(pos + 1);
      const valueEnd = await this.skipValue(valueStart);
      if ((await visit(key, { start: valueStart, end: valueEnd })) === false) return valueEnd;
      pos = await this.skipWhitespace(valueEnd);
      const c = await this.byteAt(pos);
      if (c === CLOSE_OBJECT) return pos + 1;
      if (c !== COMMA) this.fail('expected "," or "}"', pos);
      pos = await this.skipWhitespace(pos + 1);
    }
  }

  /** Yields the span of each element of the array at `position`, in order. */
  async *elements(position: number): AsyncGenerator<Span> {
    if ((await this.byteAt(position)) !== OPEN_ARRAY) this.fail('expected an array', position);
    let pos = await this.skipWhitespace(position + 1);
    if ((await this.byteAt(pos)) === CLOSE_ARRAY) return;
    for (;;) {
      const end = await this.skipValue(pos);
      yield { start: pos, end };
      pos = await this.skipWhitespace(end);
      const c = await this.byteAt(pos);
      if (c === CLOSE_ARRAY) return;
      if (c !== COMMA) this.fail('expected "," or "]"', pos);
      pos = await this.skipWhitespace(pos + 1);
    }
  }

  /** Walks the one top-level object of the source and checks nothing but whitespace follows it. */
  async document(visit: (key: string, value: Span) => Promise<boolean | void>): Promise<void> {
    const start = await this.skipWhitespace(0);
    if (start >= this.size) this.fail('empty document', start);
    let stopped = false;
    const end = await this.members(start, async (key, value) => {
      const go = await visit(key, value);
      if (go === false) stopped = true;
      return go;
    });
    if (stopped) return;
    const rest = await this.skipWhitespace(end);
    if (rest < this.size) this.fail('unexpected content after the JSON document', rest);
  }
}
