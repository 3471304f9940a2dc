import { randomBytes } from 'node:crypto';
import { link, mkdir, readdir, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { LegacyJobFiles } from '../../core/ports/runtime';
import { pathInside } from './state-files';

const ID = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,99}$/;

/** Where the legacy job definitions live under DATA_DIR. */
export function legacyJobDir(dataDir: string): string {
  return path.join(dataDir, 'cron-jobs');
}

function fileOf(dir: string, id: string): string {
  if (!ID.test(id)) throw new Error(`unsafe job id ${JSON.stringify(id)}`);
  return pathInside(dir, `${id}.json`);
}

/**
 * One `<id>.json` per legacy job. A create is atomic and never overwrites: the definition is
 * written to a temporary file and hard-linked to its name (link fails if the name exists), so a
 * reader sees either no file or the whole file.
 */
export function legacyJobFiles(dir: string): LegacyJobFiles {
  return {
    async list() {
      let names: string[];
      try {
        names = await readdir(dir);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { jobs: [], unreadable: [] };
        throw err;
      }
      const jobs: Array<{ id: string; definition: unknown }> = [];
      const unreadable: string[] = [];
      for (const name of names.sort()) {
        if (!name.endsWith('.json')) continue;
        const id = name.slice(0, -'.json'.length);
        if (!ID.test(id)) continue;
        try {
          jobs.push({ id, definition: JSON.parse(await readFile(path.join(dir, name), 'utf8')) });
        } catch {
          unreadable.push(name);
        }
      }
      return { jobs, unreadable };
    },

    async create(id, definition) {
      const target = fileOf(dir, id);
      await mkdir(dir, { recursive: true });
      const temp = path.join(dir, `.${id}.${randomBytes(6).toString('hex')}.tmp`);
      await writeFile(temp, `${JSON.stringify(definition, null, 2)}\n`, { flag: 'wx' });
      try {
        await link(temp, target);
        return true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw err;
      } finally {
        await unlink(temp).catch(() => undefined);
      }
    },

    async remove(id) {
      try {
        await unlink(fileOf(dir, id));
        return true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
        throw err;
      }
    },
  };
}
