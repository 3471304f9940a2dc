import { readFile } from 'node:fs/promises';
import type { DataFile } from '../../core/ports/runtime';

/** A file read whole: only for small files other programs keep under DATA_DIR (the citation queue). */
export function dataFile(file: string): DataFile {
  return {
    async read() {
      try {
        return await readFile(file, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
      }
    },
  };
}
