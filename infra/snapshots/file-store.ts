import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { SnapshotWriteFailedError, type SnapshotWriteFailure } from '../../core/errors';
import type { ArtifactWriter, ByteSource, SnapshotStore, StoredArtifact } from '../../core/ports';
import { SpooledBody } from './spooled-body';

/**
 * Snapshot artifacts as files in SNAPSHOT_DIR, named `<snapshot id>.json` (spec 02: the registry is
 * the directory listing). Only lowercase UUIDs name files, so no id can reach outside the directory;
 * symbolic links are never followed. Work files start with a dot and are never listed.
 */
const SNAPSHOT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const COPY_CHUNK = 1 << 20;

export function isSnapshotId(id: string): boolean {
  return SNAPSHOT_ID.test(id);
}

/** The work files of a write: `.<id>.body.tmp` (the body) and `.<id>.tmp` (the artifact before its rename). */
const WORK_FILE = /^\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(\.body)?\.tmp$/;

const failureByErrno: Record<string, SnapshotWriteFailure> = {
  ENOSPC: 'disk_full',
  EDQUOT: 'disk_full',
  EFBIG: 'disk_full',
  EROFS: 'read_only',
  EACCES: 'permission_denied',
  EPERM: 'permission_denied',
};

/** A file-system failure of a write becomes a domain error that names the condition and no path. */
async function writing<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException)?.code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) throw new SnapshotWriteFailedError(failureByErrno[code] ?? 'io_error');
    throw err;
  }
}

/**
 * Removes work files a crashed write left behind (kill -9 during POST /api/snapshots), at start.
 * Only files untouched for `graceMs` go: a write in flight in another process sharing the folder
 * touches its files at least every megabyte. Returns the names removed.
 */
export async function removeStaleWorkFiles(dir: string, now: Date, graceMs = 60_000): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!WORK_FILE.test(name)) continue;
    const file = path.join(dir, name);
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile() || now.getTime() - info.mtimeMs < graceMs) continue;
    await removeQuietly(file);
    removed.push(name);
  }
  return removed;
}

async function removeQuietly(file: string): Promise<void> {
  await unlink(file).catch(() => undefined);
}

async function fsyncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, constants.O_RDONLY).catch(() => undefined);
  if (!handle) return;
  await handle.sync().catch(() => undefined); // some file systems refuse fsync on directories
  await handle.close();
}

class FileArtifactWriter implements ArtifactWriter {
  private readonly body: SpooledBody;
  private committed = false;

  constructor(
    private readonly dir: string,
    private readonly id: string,
    body: FileHandle,
  ) {
    this.body = new SpooledBody(body);
  }

  private get bodyPath() {
    return path.join(this.dir, `.${this.id}.body.tmp`);
  }
  private get tempPath() {
    return path.join(this.dir, `.${this.id}.tmp`);
  }
  private get finalPath() {
    return path.join(this.dir, `${this.id}.json`);
  }

  async write(text: string): Promise<void> {
    if (this.body.add(text)) await writing(() => this.body.flush());
  }

  commit(head: string, tail: string): Promise<{ sizeBytes: number }> {
    return writing(() => this.commitFiles(head, tail));
  }

  private async commitFiles(head: string, tail: string): Promise<{ sizeBytes: number }> {
    await this.body.close();
    const source = await open(this.bodyPath, 'r');
    const target = await open(this.tempPath, 'wx');
    let size = 0;
    try {
      size += (await target.write(head)).bytesWritten;
      const buffer = Buffer.allocUnsafe(COPY_CHUNK);
      for (;;) {
        const { bytesRead } = await source.read(buffer, 0, COPY_CHUNK, null);
        if (!bytesRead) break;
        await target.write(buffer, 0, bytesRead);
        size += bytesRead;
      }
      size += (await target.write(tail)).bytesWritten;
      await target.sync();
    } finally {
      await source.close();
      await target.close();
    }
    await rename(this.tempPath, this.finalPath);
    this.committed = true;
    await fsyncDirectory(this.dir);
    await removeQuietly(this.bodyPath);
    return { sizeBytes: size };
  }

  async abort(): Promise<void> {
    await this.body.discard();
    await removeQuietly(this.bodyPath);
    await removeQuietly(this.tempPath);
    if (this.committed) await removeQuietly(this.finalPath);
  }
}

async function fileSource(file: string): Promise<ByteSource | null> {
  let handle: FileHandle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return null;
  }
  const stat = await handle.stat();
  if (!stat.isFile()) {
    await handle.close();
    return null;
  }
  return {
    size: stat.size,
    async read(position, length) {
      const buffer = Buffer.allocUnsafe(Math.max(0, length));
      let filled = 0;
      while (filled < length) {
        const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled);
        if (!bytesRead) break;
        filled += bytesRead;
      }
      return buffer.subarray(0, filled);
    },
    close: () => handle.close().catch(() => undefined),
  };
}

export function fileSnapshotStore(dir: string): SnapshotStore {
  return {
    async createWriter(id) {
      if (!isSnapshotId(id)) throw new Error(`not a snapshot id: ${id}`);
      return writing(async () => {
        await mkdir(dir, { recursive: true });
        const body = await open(path.join(dir, `.${id}.body.tmp`), 'wx');
        return new FileArtifactWriter(dir, id, body);
      });
    },
    async list() {
      let names: string[];
      try {
        names = await readdir(dir);
      } catch {
        return [];
      }
      const found: StoredArtifact[] = [];
      for (const name of names) {
        const id = name.endsWith('.json') ? name.slice(0, -5) : '';
        if (!isSnapshotId(id)) continue;
        const stat = await lstat(path.join(dir, name)).catch(() => undefined);
        if (stat?.isFile()) found.push({ id, sizeBytes: stat.size });
      }
      return found;
    },
    async open(id) {
      if (!isSnapshotId(id)) return null;
      return fileSource(path.join(dir, `${id}.json`));
    },
  };
}
