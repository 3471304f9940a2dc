import { spawn, type ChildProcess } from 'node:child_process';

export interface Child {
  proc: ChildProcess;
  output(): string;
  /** Resolves with the first match of `pattern` in stdout+stderr, or rejects when the process exits first. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Runs a command with its output captured, for tests that drive built artifacts. */
export function startChild(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Child {
  const proc = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    out += chunk.toString();
    for (const l of listeners) l();
  };
  proc.stdout!.on('data', onData);
  proc.stderr!.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.on('exit', (code, signal) => {
      resolve({ code, signal });
      for (const l of listeners) l();
    }),
  );
  return {
    proc,
    output: () => out,
    exited,
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => done(new Error(`timed out waiting for ${pattern}; output:\n${out}`)), timeoutMs);
        const check = () => {
          const match = out.match(pattern);
          if (match) return done(undefined, match);
          if (proc.exitCode !== null || proc.signalCode !== null) done(new Error(`process exited before ${pattern}; output:\n${out}`));
        };
        const done = (err?: Error, match?: RegExpMatchArray) => {
          clearTimeout(timer);
          listeners.delete(check);
          if (err) reject(err);
          else resolve(match!);
        };
        listeners.add(check);
        check();
      });
    },
  };
}
