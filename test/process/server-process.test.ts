import { readdirSync, readFileSync } from 'node:fs';
import { chmod, cp, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChild, type Child } from '../support/child-process';

/** A directory holding only dist/, package.json and node_modules: no sources, no tsx. */
let installDir: string;
let dataDir: string;

beforeAll(async () => {
  installDir = await mkdtemp(path.join(os.tmpdir(), 'task-server-install-'));
  await chmod(installDir, 0o755);
  await cp(path.resolve('dist'), path.join(installDir, 'dist'), { recursive: true });
  await cp(path.resolve('package.json'), path.join(installDir, 'package.json'));
  await symlink(path.resolve('node_modules'), path.join(installDir, 'node_modules'));
  dataDir = path.join(installDir, 'data');
});

afterAll(async () => {
  await rm(installDir, { recursive: true, force: true });
});

function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of ['DATABASE_URL', 'DASHBOARD_AUTH_TOKEN', 'HOST', 'PORT', 'DATA_DIR', 'TEST_DATABASE_URL', 'VITEST', 'NODE_ENV'])
    delete env[key];
  return { ...env, LOG_LEVEL: 'WARN', DISPATCHER_INTERVAL_MS: '0', CRON_MANAGER_PORT: '0', ...extra };
}

function startServer(extra: Record<string, string> = {}): Child {
  return startChild(process.execPath, ['dist/server.js'], { cwd: installDir, env: cleanEnv({ DATA_DIR: dataDir, PORT: '0', ...extra }) });
}

async function ready(child: Child): Promise<string> {
  const match = await child.waitFor(/task server ready at (http:\/\/\S+)/, 60_000);
  return match[1]!;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function getJson(url: string, init?: RequestInit): Promise<any> {
  return (await fetch(url, init)).json();
}

/**
 * The status of GET `url` once it is 200, or the last one after ~30 s: the server answers again when
 * its watch (every second, then backing off) has started the database again. Bounded, not timed.
 */
async function statusOnceAnswered(url: string): Promise<number> {
  let status = 0;
  for (let attempt = 0; attempt < 150 && status !== 200; attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 200));
    status = (await fetch(url).catch(() => undefined))?.status ?? 0;
  }
  return status;
}

/** Whether GET /api/metrics shows `line`, polled for ~30 s until it does. Bounded, not timed. */
async function metricsOnceShowing(url: string, line: string): Promise<boolean> {
  let shown = false;
  for (let attempt = 0; attempt < 150 && !shown; attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 200));
    const res = await fetch(`${url}/api/metrics`).catch(() => undefined);
    shown = res?.ok === true && (await res.text()).includes(line);
  }
  return shown;
}

/** fleet_audit_search_pending once it reads 0, or its last value after ~30 s. Bounded, not timed. */
async function auditRowsPendingOnceFolded(url: string): Promise<number> {
  let pending = Number.NaN;
  for (let attempt = 0; attempt < 150 && pending !== 0; attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 200));
    const metrics = await (await fetch(`${url}/api/metrics`)).text();
    pending = Number(/^fleet_audit_search_pending (\d+)$/m.exec(metrics)?.[1]);
  }
  return pending;
}

/** PostgreSQL processes serving this test's data directory. */
function postgresProcesses(): number[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(path.join(dataDir, 'pg'));
      } catch {
        return false;
      }
    })
    .map(Number);
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined; // gone meanwhile
  }
}

/**
 * Postmasters of this test's data directory: a backend keeps its postmaster's command line (and so
 * names the directory) until it has read its client's startup packet, so the postmaster's children
 * are left out; a second postmaster, whoever started it, is not one of them.
 */
function postmasters(): number[] {
  const all = postgresProcesses();
  return all.filter((pid) => !all.includes(parentOf(pid) ?? pid));
}

describe('node dist/server.js on the embedded PostgreSQL', () => {
  it('starts without the source tree, keeps data across a kill -9, and shuts down cleanly on SIGTERM', async () => {
    // the dispatcher is off (cleanEnv): the runner's own fold indexes the audit rows all the same
    const first = startServer({ AUDIT_SEARCH_FOLD_INTERVAL_MS: '100' });
    const url = await ready(first);
    expect(first.output().match(/task server ready/g)).toHaveLength(1);
    const health = await getJson(`${url}/api/health`);
    expect(health).toMatchObject({ status: 'ok', storage_mode: 'embedded' });
    expect(health.storage_label).toMatch(/embedded PostgreSQL/);
    const created = await getJson(`${url}/api/projects`, { method: 'POST', body: JSON.stringify({ name: 'Survives crashes' }) });
    expect(await auditRowsPendingOnceFolded(url)).toBe(0);

    first.proc.kill('SIGKILL');
    await first.exited;
    expect(postgresProcesses().length).toBeGreaterThan(0); // the orphan a crash leaves

    const second = startServer();
    const url2 = await ready(second);
    const again = await getJson(`${url2}/api/projects/${created.id}`);
    expect(again.name).toBe('Survives crashes');

    second.proc.kill('SIGTERM');
    const exit = await second.exited;
    expect(exit.code).toBe(0);
    expect(postgresProcesses()).toEqual([]);

    // and once more from a clean stop, with a stale postmaster.pid planted as a crash would leave it
    await writeFile(path.join(dataDir, 'pg', 'postmaster.pid'), '999999\n/nowhere\n0\n1\n\n127.0.0.1\n0 0\nready\n');
    const third = startServer();
    const url3 = await ready(third);
    expect((await getJson(`${url3}/api/projects/${created.id}`)).name).toBe('Survives crashes');
    third.proc.kill('SIGINT');
    expect((await third.exited).code).toBe(0);
  });

  it('starts its embedded PostgreSQL again when it goes away, on the same port and with the data', async () => {
    const child = startServer();
    try {
      const url = await ready(child);
      const created = await getJson(`${url}/api/projects`, { method: 'POST', body: JSON.stringify({ name: 'Outlives its database' }) });
      const pidFile = path.join(dataDir, 'pg', 'postmaster.pid');
      const [killed, , , port] = readFileSync(pidFile, 'utf8').split('\n');
      process.kill(Number(killed), 'SIGKILL');

      // the server's own count of the restart first: until then a backend of the killed postmaster
      // that has not yet noticed its death can still answer a query, and a 200 proves nothing
      expect(await metricsOnceShowing(url, 'fleet_embedded_postgres_restarts_total{outcome="restarted"} 1')).toBe(true);
      expect(await statusOnceAnswered(`${url}/api/projects/${created.id}`)).toBe(200);
      expect((await getJson(`${url}/api/projects/${created.id}`)).name).toBe('Outlives its database');
      expect((await getJson(`${url}/api/health`)).status).toBe('ok');
      const [restarted, , , samePort] = readFileSync(pidFile, 'utf8').split('\n');
      expect(restarted).not.toBe(killed);
      expect(samePort).toBe(port);
      expect(child.output()).toMatch(/embedded PostgreSQL \(pid \d+\) is gone after \d+ s/);
      // it had run less than a minute: started again after a pause, as a crash loop would be
      expect(child.output()).toMatch(/it had run less than 60 s; next attempt in 2 s/);

      child.proc.kill('SIGTERM');
      expect((await child.exited).code).toBe(0);
      expect(postgresProcesses()).toEqual([]);
    } finally {
      child.proc.kill('SIGKILL');
    }
  });

  it('two servers on one DATA_DIR: the database that went away is started once and shared, and the one left takes it over', async () => {
    const first = startServer();
    const second = startServer();
    try {
      const [url1, url2] = [await ready(first), await ready(second)];
      const created = await getJson(`${url1}/api/projects`, { method: 'POST', body: JSON.stringify({ name: 'Shared' }) });
      const pidFile = path.join(dataDir, 'pg', 'postmaster.pid');
      process.kill(Number(readFileSync(pidFile, 'utf8').split('\n')[0]), 'SIGKILL');
      for (const url of [url1, url2]) expect(await statusOnceAnswered(`${url}/api/projects/${created.id}`)).toBe(200);
      // both notice (each at its own watch, within a second; a pool may reconnect to the new
      // postmaster and answer before its server's watch has run); one started it, the other found
      // it started and shares it: one postmaster
      for (const child of [first, second]) await expect.poll(() => child.output()).toMatch(/embedded PostgreSQL \(pid \d+\) is gone/);
      expect(postmasters()).toEqual([Number(readFileSync(pidFile, 'utf8').split('\n')[0])]);

      // its owner stops it on the way out; the server still running starts it again and owns it
      const ownerPid = JSON.parse(readFileSync(path.join(dataDir, 'embedded-postgres.json'), 'utf8')).ownerPid as number;
      const [owner, other, otherUrl] = ownerPid === first.proc.pid ? [first, second, url2] : [second, first, url1];
      expect([first.proc.pid, second.proc.pid]).toContain(ownerPid);
      owner.proc.kill('SIGTERM');
      expect((await owner.exited).code).toBe(0);
      expect(await statusOnceAnswered(`${otherUrl}/api/projects/${created.id}`)).toBe(200);
      expect(JSON.parse(readFileSync(path.join(dataDir, 'embedded-postgres.json'), 'utf8')).ownerPid).toBe(other.proc.pid);
      other.proc.kill('SIGTERM');
      expect((await other.exited).code).toBe(0);
      expect(postgresProcesses()).toEqual([]);
    } finally {
      first.proc.kill('SIGKILL');
      second.proc.kill('SIGKILL');
    }
  });

  it('names the server that starts the embedded PostgreSQL as its owner before the database takes connections', async () => {
    const ownDataDir = path.join(installDir, 'owner-first');
    const child = startServer({ DATA_DIR: ownDataDir });
    try {
      const pidFile = path.join(ownDataDir, 'pg', 'postmaster.pid');
      // postmaster.pid says "ready" from the moment PostgreSQL accepts connections: the owner recorded
      // then is what db:stop (or anyone) sees before the server's own probe has connected
      let ownerWhenReady: number | undefined;
      while (ownerWhenReady === undefined && child.proc.exitCode === null) {
        let status: string | undefined;
        try {
          status = readFileSync(pidFile, 'utf8').split('\n')[7]?.trim();
        } catch {
          status = undefined; // not started yet
        }
        if (status === 'ready') ownerWhenReady = JSON.parse(readFileSync(path.join(ownDataDir, 'embedded-postgres.json'), 'utf8')).ownerPid;
        else await new Promise((resolve) => setImmediate(resolve));
      }
      expect(ownerWhenReady).toBe(child.proc.pid);
      await ready(child);
      child.proc.kill('SIGTERM');
      expect((await child.exited).code).toBe(0);
    } finally {
      child.proc.kill('SIGKILL');
    }
  });

  it('keeps serving, and stops on SIGTERM, once its stdout and stderr have gone away', async () => {
    // LOG_LEVEL=INFO: every request writes a line to the output that is gone
    const child = startServer({ LOG_LEVEL: 'INFO' });
    try {
      const url = await ready(child);
      child.proc.stdout!.destroy();
      child.proc.stderr!.destroy();
      for (const target of ['/api/health', '/api/health', '/api/no-such-route']) {
        const res = await fetch(`${url}${target}`, { signal: AbortSignal.timeout(10_000) });
        expect(res.status).toBe(target === '/api/health' ? 200 : 404);
      }
      child.proc.kill('SIGTERM');
      // bounded, so that a server that never hears the signal fails here and is killed below
      const stillRunning = new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 20_000).unref());
      expect(await Promise.race([child.exited, stillRunning])).toMatchObject({ code: 0 });
    } finally {
      child.proc.kill('SIGKILL');
    }
  });

  it('keeps the cluster reachable for the postgres user when DATA_DIR sits under a private directory', async () => {
    const privateParent = await mkdtemp(path.join(os.tmpdir(), 'task-server-private-'));
    try {
      const child = startServer({ DATA_DIR: path.join(privateParent, 'data') });
      const url = await ready(child);
      expect((await fetch(`${url}/api/health`)).status).toBe(200);
      child.proc.kill('SIGTERM');
      expect((await child.exited).code).toBe(0);
    } finally {
      const relocated = await realpath(path.join(privateParent, 'data', 'pg')).catch(() => undefined);
      if (relocated?.startsWith('/var/tmp/')) await rm(path.dirname(relocated), { recursive: true, force: true });
      await rm(privateParent, { recursive: true, force: true });
    }
  });

  it('refuses a non-loopback HOST without a token, with a one-line reason', async () => {
    const child = startServer({ HOST: '0.0.0.0' });
    const exit = await child.exited;
    expect(exit.code).not.toBe(0);
    expect(child.output()).toMatch(/cannot start: .*DASHBOARD_AUTH_TOKEN/);
  });

  it('refuses a malformed PORT, naming the variable', async () => {
    const child = startServer({ PORT: 'eighty' });
    expect((await child.exited).code).not.toBe(0);
    expect(child.output()).toMatch(/cannot start: bad environment: PORT/);
  });

  it('serves on a non-loopback HOST when a token is set, and requires the token', async () => {
    const child = startServer({ HOST: '0.0.0.0', DASHBOARD_AUTH_TOKEN: 'proc-token' });
    const url = (await ready(child)).replace('0.0.0.0', '127.0.0.1');
    expect((await fetch(`${url}/api/projects`)).status).toBe(401);
    expect((await fetch(`${url}/api/projects`, { headers: { authorization: 'Bearer proc-token' } })).status).toBe(200);
    child.proc.kill('SIGTERM');
    expect((await child.exited).code).toBe(0);
  });
});
