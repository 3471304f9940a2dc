import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { observations } from '../metrics/observations';
import {
  clusterDirectory,
  EmbeddedPostgresError,
  loadBinaries,
  reachableBinaries,
  runAsUser,
  runnableBinaries,
  SUPERUSER,
  type Binaries,
  type RunAs,
} from './embedded-postgres-install';
import {
  APP_DATABASE,
  canConnect,
  ensureAppDatabase,
  initialise,
  isAlive,
  isPostgresProcess,
  launch,
  readPostmasterPid,
  sleep,
  stopPostmaster,
  versionOf,
} from './postmaster';

/**
 * Our own lifecycle around the PostgreSQL binaries that the `embedded-postgres` package ships
 * (see docs/adr/0002-embedded-postgres-lifecycle.md for why not its class): initialise once,
 * start on loopback on a free port, recover what a crash leaves behind, stop on shutdown.
 */

export interface EmbeddedPostgres {
  /** Connection string for the application database (holds a password: never log it). */
  url: string;
  port: number;
  version: string;
  /** True when this process started or adopted the server and must stop it. */
  readonly owner: boolean;
  stop(): Promise<void>;
}

/** A line for the server's log; `warn` when the database went away under it. */
export type EmbeddedPostgresLog = (line: string, level?: 'info' | 'warn') => void;

/** How often a process checks that the embedded PostgreSQL it uses is still running. */
const WATCH_EVERY_MS = 1_000;
/** The longest wait between two attempts to start a PostgreSQL that went away. */
const RESTART_BACKOFF_MAX_MS = 30_000;
/** A PostgreSQL that stops sooner than this after it started counts as a failed start (a crash loop backs off). */
const STABLE_AFTER_MS = 60_000;

interface StateFile {
  port: number;
  ownerPid: number;
  postmasterPid: number;
  password: string;
}

async function readState(file: string): Promise<StateFile | undefined> {
  try {
    return JSON.parse(await fs.readFile(file, 'utf8')) as StateFile;
  } catch {
    return undefined;
  }
}

async function writeState(file: string, state: StateFile): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(tmp, JSON.stringify(state), { mode: 0o600 });
  await fs.rename(tmp, file);
}

/** Serializes starters of one data directory (serverless-offline workers, two servers started at once). */
async function withStartLock<T>(dataDir: string, work: () => Promise<T>): Promise<T> {
  const lock = path.join(dataDir, '.embedded-postgres.lock');
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      const fd = openSync(lock, 'wx');
      await fs.writeFile(lock, String(process.pid));
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number.parseInt(await fs.readFile(lock, 'utf8').catch(() => ''), 10);
      if (Number.isFinite(holder) && holder !== process.pid && !isAlive(holder)) {
        await fs.rm(lock, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new EmbeddedPostgresError(`timed out waiting for ${lock}`);
      await sleep(50);
    }
  }
  try {
    return await work();
  } finally {
    await fs.rm(lock, { force: true });
  }
}

/** Where one data directory keeps its cluster, and how it runs. */
interface Cluster {
  root: string;
  stateFile: string;
  logFile: string;
  pgdata: string;
  bins: Binaries;
  as: RunAs;
  version: string;
}

interface Attached {
  port: number;
  /** This process started or adopted the postmaster, and stops it at shutdown. */
  owner: boolean;
  postmasterPid: number;
  password: string;
}

/**
 * Under the directory's start lock: a live postmaster of a running server is shared, one left by a
 * crashed server is adopted, an unresponsive one is stopped and a stale postmaster.pid removed;
 * otherwise one is started, on `port` when the clients' URL already names one.
 */
function startOrAttach(cluster: Cluster, log: EmbeddedPostgresLog, port?: number): Promise<Attached> {
  const { root, stateFile, logFile, pgdata, bins, as, version } = cluster;
  return withStartLock(root, async () => {
    let state = await readState(stateFile);
    if (!existsSync(path.join(pgdata, 'PG_VERSION')) || !state?.password) {
      const password = randomBytes(24).toString('hex');
      log(`initialising embedded PostgreSQL ${version} in ${pgdata}`);
      await initialise(bins, pgdata, password, as, logFile);
      state = { port: 0, ownerPid: 0, postmasterPid: 0, password };
      await writeState(stateFile, state);
    }
    const running = await readPostmasterPid(pgdata);
    if (running && isAlive(running.pid) && isPostgresProcess(running.pid)) {
      if (await canConnect(running.port, state.password)) {
        const shared = state.ownerPid !== 0 && state.ownerPid !== process.pid && isAlive(state.ownerPid);
        if (!shared) {
          log(`adopting embedded PostgreSQL left running by a previous server (pid ${running.pid})`);
          await writeState(stateFile, { ...state, port: running.port, ownerPid: process.pid, postmasterPid: running.pid });
        }
        return { port: running.port, owner: !shared, postmasterPid: running.pid, password: state.password };
      }
      log(`stopping unresponsive PostgreSQL pid ${running.pid}`);
      await stopPostmaster(running.pid);
    }
    if (running) await fs.rm(path.join(pgdata, 'postmaster.pid'), { force: true });
    // Owner first, postmaster second: the postmaster takes connections (this process's own pool among
    // them) before launch() has seen it answer, and whoever reads the state file meanwhile (db:stop,
    // an operator) must find this process named as its owner, not the owner that went away.
    await writeState(stateFile, { ...state, ownerPid: process.pid, postmasterPid: 0 });
    const started = await launch(bins, pgdata, state.password, as, logFile, port);
    await writeState(stateFile, { ...state, port: started.port, ownerPid: process.pid, postmasterPid: started.pid });
    return { port: started.port, owner: true, postmasterPid: started.pid, password: state.password };
  });
}

/**
 * Starts (or attaches to) the embedded PostgreSQL of `dataDir`:
 * 1. as root, pick the postgres user and binaries it can run;
 * 2. initialise DATA_DIR/pg on first use, with a random password kept in a 0600 state file;
 * 3. a live postmaster of a running server is shared; one left by a crashed server is adopted;
 *    a stale postmaster.pid is removed;
 * 4. otherwise start one on a free loopback port and record the port;
 * 5. create the application database;
 * 6. keep it running: a postmaster that goes away (killed, crashed, stopped by hand) is started
 *    again on the same port, so the connection string stays good, within a second; one that ran
 *    less than a minute, or a start that fails, waits 2 s, then twice as long each time up to 30 s.
 *    Until it is back, requests answer 503.
 */
export async function startEmbeddedPostgres(dataDir: string, log: EmbeddedPostgresLog = () => undefined): Promise<EmbeddedPostgres> {
  const root = path.resolve(dataDir);
  await fs.mkdir(root, { recursive: true });
  const as = runAsUser();
  const pgdata = await clusterDirectory(root, as, log);
  const bins = await reachableBinaries(await runnableBinaries(await loadBinaries(), log), as);
  const cluster: Cluster = {
    root,
    stateFile: path.join(root, 'embedded-postgres.json'),
    logFile: path.join(root, 'postgres.log'),
    pgdata,
    bins,
    as,
    version: versionOf(bins),
  };

  let current = await startOrAttach(cluster, log);
  const { port, password } = current;
  await ensureAppDatabase(port, password);

  // one stop for every caller: a second SIGTERM waits for the stop the first one began
  let stopping: Promise<void> | undefined;
  let restarting: Promise<void> | undefined;
  let failures = 0;
  let nextAttemptAt = 0;
  let upSince = Date.now();
  let goneNoticed = false;
  const backOff = (what: string) => {
    failures++;
    const waitMs = Math.min(RESTART_BACKOFF_MAX_MS, WATCH_EVERY_MS * 2 ** failures);
    nextAttemptAt = Date.now() + waitMs;
    log(`${what}; next attempt in ${waitMs / 1000} s`, 'warn');
  };
  const restart = async () => {
    try {
      current = await startOrAttach(cluster, log, port);
      upSince = Date.now();
      goneNoticed = false;
      observations.embeddedPostgresRestart('restarted');
      if (current.port === port) log(`embedded PostgreSQL is back (pid ${current.postmasterPid})`);
      else log(`embedded PostgreSQL is back on port ${current.port}, which this process does not use: restart it`, 'warn');
    } catch (err) {
      observations.embeddedPostgresRestart('failed');
      backOff(`embedded PostgreSQL did not start again: ${(err as Error).message}`);
    }
  };
  const watch = setInterval(() => {
    if (stopping || restarting || isAlive(current.postmasterPid)) return;
    if (!goneNoticed) {
      goneNoticed = true;
      const ranMs = Date.now() - upSince;
      log(
        `embedded PostgreSQL (pid ${current.postmasterPid}) is gone after ${Math.round(ranMs / 1000)} s; starting it again on port ${port}`,
        'warn',
      );
      if (ranMs < STABLE_AFTER_MS) {
        backOff(`it had run less than ${STABLE_AFTER_MS / 1000} s`);
        return;
      }
      failures = 0;
    }
    if (Date.now() < nextAttemptAt) return;
    restarting = restart().finally(() => (restarting = undefined));
  }, WATCH_EVERY_MS);
  watch.unref();

  return {
    url: `postgres://${SUPERUSER}:${password}@127.0.0.1:${port}/${APP_DATABASE}`,
    port,
    version: cluster.version,
    get owner() {
      return current.owner;
    },
    stop() {
      clearInterval(watch);
      // a start still under way finishes first, so that what it started is what gets stopped
      stopping ??= (async () => {
        await restarting;
        if (current.owner) await stopPostmaster(current.postmasterPid);
      })();
      return stopping;
    },
  };
}

/**
 * `npm run db:stop`: stops the embedded PostgreSQL of `dataDir` that no live server owns, such as the
 * one serverless-offline's handlers started (it outlives offline and is adopted by the next start).
 * One that a running server owns is left alone unless `force`.
 */
export async function stopEmbeddedPostgres(dataDir: string, options: { force?: boolean } = {}): Promise<string> {
  const root = path.resolve(dataDir);
  const running = await readPostmasterPid(path.join(root, 'pg'));
  if (!running || !isAlive(running.pid) || !isPostgresProcess(running.pid)) return `no embedded PostgreSQL is running in ${root}`;
  const owner = (await readState(path.join(root, 'embedded-postgres.json')))?.ownerPid ?? 0;
  if (!options.force && owner !== 0 && owner !== process.pid && isAlive(owner)) {
    throw new EmbeddedPostgresError(
      `the embedded PostgreSQL of ${root} belongs to running process ${owner}; stop that process (or pass --force)`,
    );
  }
  await stopPostmaster(running.pid);
  return `stopped the embedded PostgreSQL of ${root} (pid ${running.pid})`;
}
