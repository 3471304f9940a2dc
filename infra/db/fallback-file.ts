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

/** Tasks read and written at a time: the copy's memory is one page's, however many tasks there are. */
const FALLBACK_PAGE_ROWS = 1000;

/**
 * Keeps DATA_DIR/fallback.json in step with the database: a cheap signature query first,
 * the full copy only when something changed; written to a temporary file, then renamed.
 * The copy is one REPEATABLE READ moment, its tasks read through a cursor a page at a time and
 * written as they come: held whole (every live task's row, then the JSON text of all of them),
 * each refresh had cost the runner memory in proportion to the table, every 15 s while tasks
 * changed (40,000 tasks: ~165 MB more RSS, much of it kept by the allocator after the collection).
 */
export class FallbackWriter {
  private lastSignature = '';

  constructor(
    private readonly db: Db,
    private readonly file: string,
  ) {}

  async refresh(savedAt: Date): Promise<boolean> {
    const { rows } = await this.db.query<{ signature: string }>(
      `SELECT concat_ws('/', (SELECT count(*) FROM projects), (SELECT max(updated_at) FROM projects),
                              (SELECT count(*) FROM tasks), (SELECT max(updated_at) FROM tasks)) AS signature`,
    );
    const signature = rows[0]?.signature ?? '';
    if (signature === this.lastSignature) return false;
    await fs.mkdir(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    const out = await fs.open(tmp, 'w');
    try {
      await this.db.transaction(async (tx) => {
        await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
        const projects = await tx.query(`SELECT ${projectColumns} FROM projects ORDER BY created_at, id`);
        await out.write(`{"savedAt":${JSON.stringify(savedAt.toISOString())},"projects":${JSON.stringify(projects.rows)},"tasks":[`);
        await tx.query(
          `DECLARE fallback_tasks NO SCROLL CURSOR FOR SELECT ${taskColumns} FROM tasks WHERE deleted_at IS NULL ORDER BY created_at, id`,
        );
        let written = 0;
        for (;;) {
          const page = await tx.query(`FETCH ${FALLBACK_PAGE_ROWS} FROM fallback_tasks`);
          if (page.rows.length === 0) break;
          const text = page.rows.map((row) => JSON.stringify(row)).join(',');
          await out.write(written === 0 ? text : `,${text}`);
          written += page.rows.length;
        }
        await tx.query('CLOSE fallback_tasks');
      });
      await out.write(']}');
    } catch (err) {
      await out.close();
      await fs.rm(tmp, { force: true });
      throw err;
    }
    await out.close();
    await fs.rename(tmp, this.file);
    this.lastSignature = signature;
    return true;
  }
}
