import { spawn } from 'node:child_process';
import { RuntimeCallError } from '../../core/errors';
import type { Runtime, RuntimeCallOptions, RuntimeDocument } from '../../core/ports';
import type { RuntimeStateFiles } from '../../core/ports/runtime';
import { runtimeCallKind, type RuntimeCallKind } from '../../core/runtime/calls';
import { logger } from '../logger';
import { runtimeStateFiles } from './state-files';

/** Enough for any list the runtime prints; more is a runaway process, not an answer. */
export const RUNTIME_STDOUT_MAX_BYTES = 16 * 1024 * 1024;
const STDERR_KEPT_BYTES = 4 * 1024;
/** Variables the runtime has no business seeing. */
const WITHHELD_ENV = ['DASHBOARD_AUTH_TOKEN', 'DATABASE_URL', 'TEST_DATABASE_URL', 'POSTGRES_PASSWORD'];

export interface CliRuntimeOptions {
  executable: string;
  /** Listing calls (RUNTIME_CLI_TIMEOUT_MS); also every kind not given in timeoutsByKind. */
  timeoutMs: number;
  /** Agent turns, wakes and memory calls take longer (core/runtime/calls.ts runtimeCallKind). */
  timeoutsByKind?: Partial<Record<RuntimeCallKind, number>>;
  stateDir: string;
  replayMaxBytes: number;
  /** Where sessions come from when not the state directory's files (the released runtime's gateway). */
  sessions?: RuntimeStateFiles;
  /**
   * The gateway this server was given (RUNTIME_GATEWAY_URL/TOKEN): the released CLI reaches its
   * scheduler, memory and agent turns through the same gateway, and reads only its own variables.
   */
  gateway?: { url?: string; token?: string };
  stdoutMaxBytes?: number;
}

/**
 * The runtime's environment: this process's, without what is not the runtime's, and with the gateway
 * this server was given under the runtime's own names unless those are set already, so that an
 * operator sets the gateway's token once (the CLI wants the WebSocket form of the address).
 */
function childEnv(gateway: CliRuntimeOptions['gateway']): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of WITHHELD_ENV) delete env[key];
  if (gateway?.url && !env.OPENCLAW_GATEWAY_URL) env.OPENCLAW_GATEWAY_URL = gateway.url.replace(/^http(s?):/, 'ws$1:');
  if (gateway?.token && !env.OPENCLAW_GATEWAY_TOKEN) env.OPENCLAW_GATEWAY_TOKEN = gateway.token;
  return env;
}

/** What a call is called in messages: the subcommand words, never the values (messages, texts). */
function callName(args: readonly string[]): string {
  return args
    .filter((a) => !a.startsWith('-'))
    .slice(0, 2)
    .join(' ');
}

function firstLine(text: string, max = 200): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/**
 * Runs RUNTIME_CLI with an argument array (no shell), in a process group of its own, with a timeout
 * by call kind (the whole group is killed when it runs out) and a bounded stdout, and turns
 * every failure of the contract into a RuntimeCallError of its kind:
 * missing executable → unavailable; non-zero exit or an `ok: false` / `error` body → failed;
 * timeout → timed_out; stdout that is not one JSON object or array, or too large → bad_output.
 * A call made with `output: 'text'` answers its stdout as `{text, warnings}` (stderr's lines).
 */
export function cliRuntime(options: CliRuntimeOptions): Runtime {
  const maxStdout = options.stdoutMaxBytes ?? RUNTIME_STDOUT_MAX_BYTES;
  const run = (args: readonly string[], callOptions: RuntimeCallOptions = {}) =>
    new Promise<RuntimeDocument>((resolve, reject) => {
      const name = callName(args);
      const timeoutMs = options.timeoutsByKind?.[runtimeCallKind(args)] ?? options.timeoutMs;
      const fail = (message: string, failure: RuntimeCallError['failure']) => {
        logger().warn('runtime call failed', { call: name, failure, reason: message });
        reject(new RuntimeCallError(`runtime ${name}: ${message}`, failure));
      };
      let child;
      try {
        // Its own process group, so that a call that runs out of time ends with everything it
        // started: the released runtime's CLI forks, and a SIGKILL of the parent alone leaves the fork running.
        child = spawn(options.executable, [...args], {
          shell: false,
          stdio: ['ignore', 'pipe', 'pipe'],
          env: childEnv(options.gateway),
          detached: true,
        });
      } catch (err) {
        fail(`cannot start ${options.executable}: ${(err as Error).message}`, 'unavailable');
        return;
      }
      const stdout: Buffer[] = [];
      let stdoutBytes = 0;
      let stderr = '';
      let settled = false;
      let overflow = false;
      let timedOut = false;
      const settle = (action: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        action();
      };
      const killGroup = () => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
      };
      const timer = setTimeout(() => {
        timedOut = true;
        killGroup();
      }, timeoutMs);
      child.stdout.on('data', (chunk: Buffer) => {
        stdoutBytes += chunk.length;
        if (stdoutBytes > maxStdout) {
          overflow = true;
          killGroup();
          return;
        }
        stdout.push(chunk);
      });
      child.stderr.on('data', (chunk: Buffer) => {
        if (stderr.length < STDERR_KEPT_BYTES) stderr += chunk.toString('utf8').slice(0, STDERR_KEPT_BYTES - stderr.length);
      });
      child.on('error', (err: NodeJS.ErrnoException) => {
        const missing = err.code === 'ENOENT' || err.code === 'EACCES' || err.code === 'ENOTDIR';
        settle(() =>
          fail(
            missing
              ? `agent runtime unavailable: ${options.executable} not found or not executable`
              : `cannot run ${options.executable}: ${err.message}`,
            'unavailable',
          ),
        );
      });
      child.on('close', (code, signal) => {
        settle(() => {
          if (timedOut) return fail(`no answer within ${timeoutMs} ms`, 'timed_out');
          if (overflow) return fail(`printed more than ${maxStdout} bytes`, 'bad_output');
          const text = Buffer.concat(stdout).toString('utf8');
          if (callOptions.output === 'text') {
            if (code !== 0 || signal)
              return fail(
                `exited with ${signal ? `signal ${signal}` : `code ${code}`}: ${firstLine(stderr) || firstLine(text) || 'no message'}`,
                'failed',
              );
            return resolve({
              text: text.trim(),
              warnings: stderr
                .split('\n')
                .map((l) => l.trim())
                .filter(Boolean),
            });
          }
          let doc: unknown;
          try {
            doc = JSON.parse(text);
          } catch {
            doc = undefined;
          }
          const body = typeof doc === 'object' && doc !== null && !Array.isArray(doc) ? (doc as Record<string, unknown>) : undefined;
          const reported = body && (body.ok === false || body.error !== undefined) ? errorText(body) : undefined;
          if (code !== 0 || signal) {
            const why = reported ?? (firstLine(stderr) || 'no message');
            return fail(`exited with ${signal ? `signal ${signal}` : `code ${code}`}: ${why}`, 'failed');
          }
          // The released runtime prints some lists as a top-level array (`agents list`).
          if (!body && Array.isArray(doc)) return resolve(doc);
          if (!body) return fail(text.trim() ? 'printed something that is not JSON' : 'printed nothing', 'bad_output');
          if (reported !== undefined) return fail(reported, 'failed');
          resolve(body);
        });
      });
    });
  return {
    stateDir: options.stateDir,
    run,
    files: options.sessions ?? runtimeStateFiles(options.stateDir, options.replayMaxBytes),
  };
}

function errorText(body: Record<string, unknown>): string {
  const error = body.error;
  if (typeof error === 'string' && error) return firstLine(error, 300);
  if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') {
    return firstLine((error as { message: string }).message, 300);
  }
  return 'the runtime reported a failure (ok: false)';
}
