import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SnapshotWriteFailedError } from '../../core/errors';
import { fileSnapshotStore, removeStaleWorkFiles } from '../../infra/snapshots/file-store';

// a disk that fills up or turns read-only cannot be arranged without privileges: the failing
// system call is replaced, everything else is the real file system
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  return { ...real, open: vi.fn(real.open) };
});

const errno = (code: string, file: string) => Object.assign(new Error(`${code}: failure, open '${file}'`), { code, path: file });

afterEach(() => vi.mocked(fs.open).mockReset());

async function tempDir(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), 'snapshot-store-'));
}

describe('snapshot file store failures', () => {
  it.each([
    ['ENOSPC', 'disk_full'],
    ['EROFS', 'read_only'],
    ['EACCES', 'permission_denied'],
    ['EIO', 'io_error'],
  ])('a %s when the write starts is snapshot_write_failed (%s), naming no path', async (code, reason) => {
    const dir = await tempDir();
    vi.mocked(fs.open).mockRejectedValueOnce(errno(code, path.join(dir, 'secret-place')));
    const failure = await fileSnapshotStore(dir)
      .createWriter(randomUUID())
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(SnapshotWriteFailedError);
    expect(failure).toMatchObject({ code: 'snapshot_write_failed', reason });
    expect(JSON.stringify({ m: (failure as Error).message, ...(failure as SnapshotWriteFailedError).extra })).not.toContain(dir);
  });

  it('a disk that fills up at commit is snapshot_write_failed, and abort leaves no work file', async () => {
    const dir = await tempDir();
    const real = (await vi.importActual<typeof import('node:fs/promises')>('node:fs/promises')).open;
    vi.mocked(fs.open).mockImplementation(real);
    const writer = await fileSnapshotStore(dir).createWriter(randomUUID());
    await writer.write('"tables":{}');
    vi.mocked(fs.open).mockImplementation(async (file, flags, mode) => {
      if (String(file).endsWith('.tmp') && !String(file).endsWith('.body.tmp')) throw errno('ENOSPC', String(file));
      return real(file, flags, mode);
    });
    await expect(writer.commit('{', '}')).rejects.toMatchObject({ code: 'snapshot_write_failed', reason: 'disk_full' });
    await writer.abort();
    expect(await fs.readdir(dir)).toEqual([]);
  });
});

describe('stale work files', () => {
  it('removes the work files of an interrupted write that are older than the grace, and nothing else', async () => {
    vi.mocked(fs.open).mockImplementation((await vi.importActual<typeof import('node:fs/promises')>('node:fs/promises')).open);
    const dir = await tempDir();
    const [a, b, c, d] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const names = [`.${a}.body.tmp`, `.${b}.tmp`, `.${c}.body.tmp`, `${d}.json`, '.keep', `.${a}.body.tmp.bak`];
    for (const n of names) await fs.writeFile(path.join(dir, n), 'x');
    const now = new Date('2026-11-24T12:00:00Z');
    const old = new Date(now.getTime() - 10 * 60_000);
    for (const n of names.filter((n) => !n.includes(c))) await fs.utimes(path.join(dir, n), old, old);
    const recent = new Date(now.getTime() - 5_000);
    await fs.utimes(path.join(dir, `.${c}.body.tmp`), recent, recent);

    expect((await removeStaleWorkFiles(dir, now)).sort()).toEqual([`.${a}.body.tmp`, `.${b}.tmp`].sort());
    expect((await fs.readdir(dir)).sort()).toEqual([`.${c}.body.tmp`, `${d}.json`, '.keep', `.${a}.body.tmp.bak`].sort());
    expect(await removeStaleWorkFiles(path.join(dir, 'missing'), now)).toEqual([]);
  });
});
