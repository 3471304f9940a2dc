import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { applyRestore } from '../core/restore/apply';
import { createSnapshot } from '../core/snapshots/create-snapshot';
import type { Deps } from '../core/ports';
import { memorySource } from '../core/snapshots/byte-sources';
import { describeTable } from '../core/snapshots/live-table';
import { snapshotTables } from '../core/snapshots/tables';
import { migrate } from '../infra/db/migrate';
import { PgDb } from '../infra/db/pg-db';
import { seedEveryTable } from '../test/handlers/snapshots-fixtures';
import { benchDatabase, benchDeps, report } from './support';

/**
 * Full-state snapshot and restore of BENCH_SNAPSHOT_ROWS rows (default 200,000) spread over the
 * 23 captured tables. Snapshot rows/s against a bare cursor read of the same rows as JSON text;
 * restore (replace onto emptied tables) rows/s against bare batched INSERT ... jsonb_populate_recordset
 * of the parsed artifact. Peak RSS above the start of each step shows what stays in memory.
 */
const targetRows = Number(process.env.BENCH_SNAPSHOT_ROWS ?? 200_000);

function peakRss() {
  const start = process.memoryUsage().rss;
  let peak = start;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  return () => {
    clearInterval(timer);
    peak = Math.max(peak, process.memoryUsage().rss);
    return `peak RSS +${((peak - start) / 1048576).toFixed(0)} MB`;
  };
}

/** The artifact's text, read through the store the snapshot was written to (wherever Deps put it). */
async function readArtifact(deps: Deps, snapshotId: string): Promise<string> {
  const source = await deps.snapshots.open(snapshotId);
  if (!source) throw new Error(`snapshot ${snapshotId} has no artifact in the store`);
  try {
    return Buffer.from(await source.read(0, source.size)).toString('utf8');
  } finally {
    await source.close();
  }
}

async function emptyTables(db: PgDb): Promise<void> {
  await db.query(`TRUNCATE ${snapshotTables.map((t) => t.name).join(', ')} CASCADE`);
}

export async function run(): Promise<void> {
  const database = await benchDatabase();
  const db = new PgDb(database.url);
  const snapshotDir = await mkdtemp(path.join(os.tmpdir(), 'task-server-bench-snapshots-'));
  try {
    await migrate(db);
    await emptyTables(db);
    await seedEveryTable(db, Math.ceil(targetRows / snapshotTables.length), 'bench');
    const deps = benchDeps(db, snapshotDir);

    let started = Date.now();
    let rows = 0;
    await db.transaction(async (tx) => {
      for (const t of snapshotTables) {
        await tx.query(
          `DECLARE c NO SCROLL CURSOR FOR SELECT (to_jsonb(x))::text AS row FROM ${t.name} x ORDER BY ${t.primaryKey.join(', ')}`,
        );
        for (;;) {
          const { rows: got } = await tx.query<{ row: string }>('FETCH 1000 FROM c');
          if (!got.length) break;
          rows += got.length;
        }
        await tx.query('CLOSE c');
      }
    });
    const baselineRead = rows / ((Date.now() - started) / 1000);

    let stop = peakRss();
    started = Date.now();
    const created = await createSnapshot(deps, { name: 'bench' });
    const snapshotSeconds = (Date.now() - started) / 1000;
    const snapshotMemory = stop();
    const total = Object.values(created.manifest.counts).reduce((a, b) => a + b, 0);
    report(`snapshot create (${total} rows)`, total / snapshotSeconds, baselineRead, 'rows/s', snapshotMemory);

    await emptyTables(db);
    stop = peakRss();
    started = Date.now();
    const body = memorySource(Buffer.from(JSON.stringify({ snapshot_id: created.snapshot_id, mode: 'replace', restoreId: randomUUID() })));
    await applyRestore(deps, body, 1 << 30);
    const restoreSeconds = (Date.now() - started) / 1000;
    const restoreMemory = stop();

    await emptyTables(db);
    started = Date.now();
    const artifact = JSON.parse(await readArtifact(deps, created.snapshot_id)) as { tables: Record<string, unknown[]> };
    for (const t of snapshotTables) {
      const all = artifact.tables[t.name] ?? [];
      const live = await describeTable(db, t);
      const columns = live.columns.map((c) => `"${c}"`).join(', ');
      await db.transaction(async (tx) => {
        await tx.query('SET CONSTRAINTS ALL DEFERRED');
        for (let i = 0; i < all.length; i += 500) {
          await tx.query(`INSERT INTO ${t.name} (${columns}) SELECT ${columns} FROM jsonb_populate_recordset(NULL::${t.name}, $1::jsonb)`, [
            JSON.stringify(all.slice(i, i + 500)),
          ]);
        }
      });
    }
    const baselineInsert = total / ((Date.now() - started) / 1000);
    report(`restore apply, replace (${total} rows)`, total / restoreSeconds, baselineInsert, 'rows/s', restoreMemory);
  } finally {
    await db.close();
    await rm(snapshotDir, { recursive: true, force: true });
    await database.close();
  }
}
