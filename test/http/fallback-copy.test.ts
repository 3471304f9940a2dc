import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../core/ports';
import { taskColumns } from '../../core/tasks/task';
import { startFallbackRefresher, type AppContext } from '../../infra/app-context';
import { fallbackPath, FallbackWriter, readFallbackFile } from '../../infra/db/fallback-file';
import { useTestApp } from '../support/use-app';

const app = useTestApp();

/**
 * The database as the writer sees it, noting the most rows any one statement answered
 * (transactions included) and the most transactions open through it at once.
 */
function measured<D extends Db>(
  db: D,
): { db: D; largestResult: () => number; mostOpenTransactions: () => number; transactions: () => number } {
  let largest = 0;
  let open = 0;
  let mostOpen = 0;
  let started = 0;
  const wrap = <T extends Db>(inner: T): T =>
    new Proxy(inner, {
      get(target, key, receiver) {
        if (key === 'query') {
          return async (sql: string, params?: readonly unknown[]) => {
            const result = await target.query(sql, params);
            largest = Math.max(largest, result.rows.length);
            return result;
          };
        }
        if (key === 'transaction') {
          return async <T>(work: (tx: Db) => Promise<T>) => {
            started += 1;
            mostOpen = Math.max(mostOpen, ++open);
            try {
              return await target.transaction((tx) => work(wrap(tx)));
            } finally {
              open -= 1;
            }
          };
        }
        return Reflect.get(target, key, receiver);
      },
    });
  return { db: wrap(db), largestResult: () => largest, mostOpenTransactions: () => mostOpen, transactions: () => started };
}

describe('the fallback copy (DATA_DIR/fallback.json)', () => {
  it('is read and written a page of tasks at a time, whatever the number of tasks, and holds every live one as the database has it', async () => {
    const project = await app.call('POST', '/api/projects', { body: { name: 'Many tasks' } });
    expect(project.status).toBe(201);
    await app.db.query(
      `INSERT INTO tasks (id, project_id, title, status, created_at)
       SELECT gen_random_uuid(), $1, 'task ' || g, 'ready', now() - make_interval(secs => g % 7) FROM generate_series(1, 2500) g`,
      [project.body.id],
    );
    await app.db.query(`UPDATE tasks SET deleted_at = now() WHERE title IN ('task 3', 'task 1700')`);

    const { db, largestResult } = measured(app.db);
    const writer = new FallbackWriter(db, fallbackPath(app.dataDir));
    expect(await writer.refresh(new Date('2026-11-27T12:00:00Z'))).toBe(true);

    // held whole, the copy read all 2,498 live tasks in one statement
    expect(largestResult()).toBeLessThanOrEqual(1000);
    const copy = await readFallbackFile(fallbackPath(app.dataDir));
    expect(copy.savedAt).toBe('2026-11-27T12:00:00.000Z');
    const { rows: live } = await app.db.query(`SELECT ${taskColumns} FROM tasks WHERE deleted_at IS NULL ORDER BY created_at, id`);
    expect(live.length).toBeGreaterThanOrEqual(2498);
    expect(copy.tasks).toEqual(JSON.parse(JSON.stringify(live)));
    expect(copy.projects.map((p) => (p as { name: string }).name)).toContain('Many tasks');
    // nothing changed since: the signature spares the next refresh the copy
    expect(await writer.refresh(new Date())).toBe(false);
    expect(JSON.parse(await readFile(fallbackPath(app.dataDir), 'utf8')).savedAt).toBe('2026-11-27T12:00:00.000Z');
  });

  it('is written by one refresh at a time, however short the interval against the time a copy takes', async () => {
    const { db, mostOpenTransactions, transactions } = measured(app.ctx.database()!);
    const ctx = new Proxy(app.ctx, {
      get: (target, key, receiver) => (key === 'database' ? () => db : Reflect.get(target, key, receiver)),
    }) as AppContext;
    // a fresh refresher has no signature yet: its first copy reads every task (over 2,000 since the test above), while ticks come every millisecond
    const stop = startFallbackRefresher(ctx, 1);
    await expect.poll(() => transactions(), { timeout: 20_000, interval: 5 }).toBeGreaterThanOrEqual(1);
    await stop();
    expect(mostOpenTransactions()).toBe(1);
    expect((await readFallbackFile(fallbackPath(app.dataDir))).tasks.length).toBeGreaterThanOrEqual(2498);
  });
});
