import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import type { Deps } from '../core/ports';
import { configuredPorts, createAppContext, setAppContext, type AppContext } from '../infra/app-context';
import { config, parseConfig, resetConfig } from '../infra/config';
import { startEmbeddedPostgres } from '../infra/db/embedded-postgres';
import { PgDb } from '../infra/db/pg-db';

export const seconds = Number(process.env.BENCH_SECONDS ?? 5);
export const connections = Number(process.env.BENCH_CONNECTIONS ?? 20);

/** A database for a benchmark: DATABASE_URL when set, else an embedded PostgreSQL in a temporary directory. */
export async function benchDatabase(): Promise<{ url: string; dataDir: string; close(): Promise<void> }> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'task-server-bench-'));
  if (process.env.DATABASE_URL) {
    return { url: process.env.DATABASE_URL, dataDir, close: () => rm(dataDir, { recursive: true, force: true }) };
  }
  const pg = await startEmbeddedPostgres(dataDir);
  return {
    url: pg.url,
    dataDir,
    async close() {
      await pg.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The database as a baseline server uses it: every statement parsed and planned anew, as the
 * driver worked before the server named its repeated statements (DB_PREPARED_STATEMENTS), so that
 * baselines stay what they measured.
 */
export function bareDb(url: string): PgDb {
  return new PgDb(url, { prepareStatements: false });
}

/** Requests per second of GET url, measured in-process, bounded in time. */
export async function requestsPerSecond(url: string): Promise<{ rps: number; p99: number; errors: number }> {
  const result = await autocannon({ url, connections, duration: seconds });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

export function report(name: string, ours: number, baseline: number, unit: string, extra = ''): void {
  const ratio = baseline > 0 ? ours / baseline : Number.NaN;
  console.log(
    `${name.padEnd(44)} ${ours.toFixed(0).padStart(8)} ${unit}   baseline ${baseline.toFixed(0).padStart(8)} ${unit}   ratio ${ratio.toFixed(2)}${extra ? `   ${extra}` : ''}`,
  );
}

/**
 * An in-process app context on a benchmark's database (it reads its configuration from the
 * environment). close() stops it and puts the environment back, so that a later scenario, which
 * takes a set DATABASE_URL as its own, does not inherit a database that is gone.
 */
export async function benchAppContext(database: { url: string; dataDir: string }): Promise<{ ctx: AppContext; close(): Promise<void> }> {
  const saved = { DATABASE_URL: process.env.DATABASE_URL, DATA_DIR: process.env.DATA_DIR, LOG_LEVEL: process.env.LOG_LEVEL };
  Object.assign(process.env, { DATABASE_URL: database.url, DATA_DIR: database.dataDir, LOG_LEVEL: 'ERROR' });
  resetConfig();
  const ctx = await createAppContext(config());
  setAppContext(ctx);
  return {
    ctx,
    async close() {
      await ctx.close();
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
      resetConfig();
    },
  };
}

/**
 * The server's own ports on a benchmark's database (files under `dataDir`), with a runtime whose
 * every call succeeds at once (wakes cost nothing).
 */
export function benchDeps(db: PgDb, dataDir: string): Deps {
  return {
    ...configuredPorts(parseConfig({ DATA_DIR: dataDir })),
    storage: { mode: 'database', db, label: 'bench' },
    prices: {},
    runtime: { stateDir: '/nonexistent', run: async () => ({ ok: true }) },
  };
}

/** Median microseconds of `work`, repeated for at most BENCH_SECONDS and at most 200 times. */
export async function medianMs(work: () => Promise<unknown>): Promise<number> {
  await work();
  const times: number[] = [];
  const stop = Date.now() + seconds * 1000;
  while (Date.now() < stop && times.length < 200) {
    const t0 = performance.now();
    await work();
    times.push((performance.now() - t0) * 1000);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? Number.NaN;
}

/** The id of bench project number `n` (an SQL expression), as insertBenchProjects names them. */
export const benchProjectIdSql = (n: string) => `('00000000-0000-4000-b000-' || lpad(to_hex(${n}), 12, '0'))::uuid`;

/** Inserts projects 1..count, named `bench <n>`, with the ids benchProjectIdSql gives. */
export async function insertBenchProjects(raw: PgDb, count: number): Promise<void> {
  await raw.query(`INSERT INTO projects (id, name) SELECT ${benchProjectIdSql('g')}, 'bench ' || g FROM generate_series(1, ${count}) g`);
}

/**
 * Inserts `count` live tasks spread over bench projects 1..projects, set-based in SQL: title
 * `bench task <g>` plus `titleSuffixSql`, status from `statusSql` (an expression of the series
 * number `g`), priorities and owners (`agent-<g % 100>`) in turn, created a second apart going back.
 */
export async function insertBenchTasks(
  raw: PgDb,
  count: number,
  projects: number,
  shape: { statusSql: string; titleSuffixSql?: string },
): Promise<void> {
  await raw.query(
    `INSERT INTO tasks (id, project_id, title, status, priority, owner, created_at, updated_at)
     SELECT gen_random_uuid(), ${benchProjectIdSql(`1 + g % ${projects}`)}, 'bench task ' || g${shape.titleSuffixSql ? ` || ${shape.titleSuffixSql}` : ''},
            ${shape.statusSql}, (ARRAY['low','medium','high','critical'])[1 + g % 4], 'agent-' || (g % 100),
            now() - g * interval '1 second', now() - g * interval '1 second'
       FROM generate_series(1, ${count}) g`,
  );
}

/** A process's resident set (VmRSS) in MB, read from /proc: the figure of a child measured from outside. */
export function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}
