import type { FileHandle } from 'node:fs/promises';

const FLUSH_BYTES = 1 << 20;

/**
 * The body of an artifact being written, spooled to a work file (the directory store's and the S3
 * store's): rows arrive as many small strings and reach the file in writes of about a megabyte.
 */
export class SpooledBody {
  private pending: string[] = [];
  private pendingBytes = 0;

  constructor(private handle: FileHandle | undefined) {}

  /** Buffers `text`; answers whether a megabyte is waiting, so the caller flushes (with its own error mapping). */
  add(text: string): boolean {
    this.pending.push(text);
    this.pendingBytes += text.length;
    return this.pendingBytes >= FLUSH_BYTES;
  }

  async flush(): Promise<void> {
    if (!this.pending.length || !this.handle) return;
    const chunk = this.pending.join('');
    this.pending = [];
    this.pendingBytes = 0;
    await this.handle.write(chunk);
  }

  /** Writes what is left and closes the work file. */
  async close(): Promise<void> {
    await this.flush();
    await this.handle!.close();
    this.handle = undefined;
  }

  /** Closes the work file without writing what is left (an aborted write). */
  async discard(): Promise<void> {
    this.pending = [];
    await this.handle?.close().catch(() => undefined);
    this.handle = undefined;
  }
}
