import fs from 'node:fs/promises';
import path from 'node:path';
import type { MarkdownTaskFile } from '../../core/ports';

/** DATA_DIR/tasks.md, the legacy markdown task list; written to a temporary file, then renamed. */
export function markdownTaskFile(dataDir: string): MarkdownTaskFile {
  const file = path.join(dataDir, 'tasks.md');
  return {
    path: file,
    async read() {
      try {
        return await fs.readFile(file, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
      }
    },
    async write(text) {
      await fs.mkdir(dataDir, { recursive: true });
      const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
      await fs.writeFile(tmp, text, 'utf8');
      await fs.rename(tmp, file);
    },
  };
}
