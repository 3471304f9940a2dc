import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * `node dist/server.js` (build first) as a child process on loopback, for the scripts and benchmarks
 * that drive the console in a browser: a free port, no dispatcher timer, no cron manager, no token
 * and no other front end, whatever this shell exports; `env` adds to or overrides that (DATA_DIR,
 * DATABASE_URL, LOG_LEVEL). Resolves with its address once its ready line is printed.
 */
export async function startBuiltServer(env: Record<string, string>): Promise<{ url: string; stop(): Promise<void> }> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, PORT: '0', LOG_LEVEL: 'WARN', DISPATCHER_INTERVAL_MS: '0', CRON_MANAGER_PORT: '0' };
  for (const key of ['DASHBOARD_AUTH_TOKEN', 'DATABASE_URL', 'DASHBOARD_UI_DIR', 'HOST']) delete childEnv[key];
  Object.assign(childEnv, env);
  const child = spawn(process.execPath, [path.join(root, 'dist/server.js')], { env: childEnv, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    child.stdout.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = seen.match(/task server ready at (http:\/\/\S+)/);
      if (match) resolve(match[1]!);
    });
    child.on('exit', (code) => reject(new Error(`dist/server.js exited (${code}) before it was ready`)));
  });
  return {
    url,
    stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}
