import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { EmbeddedPostgresError, SUPERUSER, type Binaries, type RunAs } from './embedded-postgres-install';

/**
 * One PostgreSQL server process of the embedded cluster, as the supervisor (embedded-postgres.ts)
 * handles it: whether it runs, what its postmaster.pid says, initdb, starting it until it answers,
 * the application database, and stopping it by escalating signals.
 */

/** The database the server's own tables live in, beside the cluster's `postgres`. */
export const APP_DATABASE = 'task_server';

/** Whether a process runs; a zombie (killed, not yet reaped) counts as gone. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc: trust the signal probe
  }
}

export function isPostgresProcess(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('postgres');
  } catch {
    // No /proc (macOS): trust liveness alone.
    return isAlive(pid);
  }
}

/** postmaster.pid lines: 1 pid, 2 data dir, 3 start time, 4 port, … */
export async function readPostmasterPid(pgdata: string): Promise<{ pid: number; port: number } | undefined> {
  try {
    const lines = (await fs.readFile(path.join(pgdata, 'postmaster.pid'), 'utf8')).split('\n');
    const pid = Number.parseInt(lines[0] ?? '', 10);
    const port = Number.parseInt(lines[3] ?? '', 10);
    return Number.isFinite(pid) ? { pid, port } : undefined;
  } catch {
    return undefined;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function canConnect(port: number, password: string, database = 'postgres'): Promise<boolean> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: SUPERUSER, password, database, connectionTimeoutMillis: 2_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function tail(file: string, lines = 15): Promise<string> {
  const text = await fs.readFile(file, 'utf8').catch(() => '');
  return text.trim().split('\n').slice(-lines).join('\n');
}

export async function initialise(bins: Binaries, pgdata: string, password: string, as: RunAs, logFile: string): Promise<void> {
  // A directory without PG_VERSION is the remains of an interrupted initdb: start over.
  await fs.rm(pgdata, { recursive: true, force: true });
  await fs.mkdir(pgdata, { recursive: true, mode: 0o700 });
  const pwfile = path.join(os.tmpdir(), `task-server-pw-${randomBytes(6).toString('hex')}`);
  await fs.writeFile(pwfile, `${password}\n`, { mode: 0o600 });
  try {
    if (as.uid !== undefined) {
      await fs.chown(pgdata, as.uid, as.gid!);
      await fs.chown(pwfile, as.uid, as.gid!);
    }
    const result = spawnSync(
      bins.initdb,
      ['-D', pgdata, '-U', SUPERUSER, '--auth=scram-sha-256', `--pwfile=${pwfile}`, '-E', 'UTF8', '--locale=C', '--no-instructions'],
      { ...as, encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } },
    );
    await fs.appendFile(logFile, `${result.stdout ?? ''}${result.stderr ?? ''}`);
    if (result.status !== 0) {
      const reason = result.error?.message ?? (result.stderr || result.stdout).trim().split('\n').slice(-3).join(' ');
      throw new EmbeddedPostgresError(`initdb failed in ${pgdata}: ${reason}`);
    }
  } finally {
    await fs.rm(pwfile, { force: true });
  }
}

/** Kills postgres backends left over from a postmaster that died, which would block a restart. */
function killLeftoverBackends(pgdata: string): void {
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc');
  } catch {
    return;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.includes('postgres') && cmdline.includes(pgdata)) process.kill(Number(entry), 'SIGKILL');
    } catch {
      // gone already
    }
  }
}

/** Starts a postmaster on `port` (the clients' URL names it), or on a free port. */
export async function launch(
  bins: Binaries,
  pgdata: string,
  password: string,
  as: RunAs,
  logFile: string,
  port?: number,
): Promise<{ pid: number; port: number }> {
  let lastError = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    const listenOn = port ?? (await freePort());
    const log = openSync(logFile, 'a');
    const child = spawn(
      bins.postgres,
      [
        '-D',
        pgdata,
        '-p',
        String(listenOn),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'unix_socket_directories=',
        '-c',
        'max_connections=200',
      ],
      { ...as, detached: true, stdio: ['ignore', log, log], env: { ...process.env, LC_ALL: 'C' } },
    );
    closeSync(log);
    child.unref();
    let exited = false;
    child.on('exit', () => {
      exited = true;
    });
    child.on('error', (err) => {
      exited = true;
      lastError = err.message;
    });
    const deadline = Date.now() + 30_000;
    while (!exited && Date.now() < deadline) {
      if (await canConnect(listenOn, password)) return { pid: child.pid!, port: listenOn };
      await sleep(50);
    }
    if (!exited) child.kill('SIGKILL');
    const logTail = await tail(logFile);
    lastError ||= logTail;
    if (/pre-existing shared memory block|lock file .* already exists/i.test(logTail)) {
      killLeftoverBackends(pgdata);
      await fs.rm(path.join(pgdata, 'postmaster.pid'), { force: true });
    }
  }
  throw new EmbeddedPostgresError(`embedded PostgreSQL did not start: ${lastError.split('\n').slice(-4).join(' | ')}`);
}

export async function ensureAppDatabase(port: number, password: string): Promise<void> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: SUPERUSER, password, database: 'postgres' });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [APP_DATABASE]);
    if (!rowCount)
      await client.query(`CREATE DATABASE ${APP_DATABASE}`).catch((err: { code?: string }) => {
        // created meanwhile by another starter: 42P04 once its CREATE committed, 23505 (the catalog's
        // unique index) when both CREATEs ran at once
        if (err.code !== '42P04' && err.code !== '23505') throw err;
      });
  } finally {
    await client.end();
  }
}

export async function stopPostmaster(pid: number): Promise<void> {
  // SIGINT is PostgreSQL's fast shutdown: abort sessions, checkpoint, exit.
  const signals: Array<[NodeJS.Signals, number]> = [
    ['SIGINT', 20_000],
    ['SIGQUIT', 5_000],
    ['SIGKILL', 5_000],
  ];
  for (const [signal, waitMs] of signals) {
    try {
      process.kill(pid, signal);
    } catch {
      return;
    }
    const deadline = Date.now() + waitMs;
    while (Date.now() < deadline) {
      if (!isAlive(pid)) return;
      await sleep(25);
    }
  }
}

export function versionOf(bins: Binaries): string {
  return spawnSync(bins.postgres, ['--version'], { encoding: 'utf8' }).stdout.trim().split(' ').pop() ?? 'unknown';
}
