import fs from 'node:fs/promises';
import path from 'node:path';
import type { Db, FallbackData } from '../../core/ports';
import { projectColumns } from '../../core/projects/project';
import { taskColumns } from '../../core/tasks/task';

export function fallbackPath(dataDir: string): string {
  return path.join(dataDir, 'fallback.json');
}

/** The last saved copy, or an empty one (savedAt null) when none was ever written or it is unreadable. */
export async function readFallbackFile(file: string): Promise<FallbackData> {
  try {
    const data = JSON.parse(await fs.readFile(file, 'utf8')) as FallbackData;
    if (!Array.isArray(data.projects) || !Array.isArray(data.tasks)) throw new Error('bad shape');
    return data;
  } catch {
    return { savedAt: null, projects: [], tasks: [] };
  }
}

/**
 * Keeps DATA_DIR/fallback.json in step with the database: a cheap signature query first,
 * the full copy only when something changed; written to a temporary file, then renamed.
 */
export class FallbackWriter {
  private lastSignature = '';

  constructor(private readonly db: Db, private readonly file: string) {}

  async refresh(savedAt: Date): Promise<boolean> {
    const { rows } = await this.db.query<{ signature: string }>(
      `SELECT concat_ws('/', (SELECT count(*) FROM projects), (SELECT max(updated_at) FROM projects),
                              (SELECT count(*) FROM tasks), (SELECT max(updated_at) FROM tasks)) AS signature`,
    );
    const signature = rows[0]?.signature ?? '';
    if (signature === this.lastSignature) return false;
    const projects = await this.db.query(`SELECT ${projectColumns} FROM projects ORDER BY created_at, id`);
    const tasks = await this.db.query(`SELECT ${taskColumns} FROM tasks WHERE deleted_at IS NULL ORDER BY created_at, id`);
    const data = { savedAt: savedAt.toISOString(), projects: projects.rows, tasks: tasks.rows };
    await fs.mkdir(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    await fs.writeFile(tmp, JSON.stringify(data));
    await fs.rename(tmp, this.file);
    this.lastSignature = signature;
    return true;
  }
}
