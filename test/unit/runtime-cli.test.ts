import { mkdtemp, readFile, rm, writeFile, chmod } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { RuntimeCallError } from '../../core/errors';
import { runtimeCalls } from '../../core/runtime/calls';
import { fieldsOf } from '../../core/runtime/payload';
import { resetConfig } from '../../infra/config';
import { cliRuntime } from '../../infra/runtime/cli-runtime';
import { clearFakeRuntimeEnv, fakeRuntimePath, fixtureStateDir, setFakeMode } from '../fixtures/runtime/fake-runtime-env';

const runtime = cliRuntime({ executable: fakeRuntimePath, timeoutMs: 10_000, stateDir: fixtureStateDir, replayMaxBytes: 1024 });

async function failureOf(promise: Promise<unknown>): Promise<RuntimeCallError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RuntimeCallError);
  return error as RuntimeCallError;
}

/** Whether a process of that pid still runs (signal 0 checks without sending anything). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

let scratch: string;
beforeAll(async () => {
  process.env.LOG_LEVEL = 'SILENT';
  resetConfig();
  scratch = await mkdtemp(path.join(os.tmpdir(), 'runtime-cli-'));
});
afterEach(() => setFakeMode('ok'));
afterAll(async () => {
  clearFakeRuntimeEnv();
  await rm(scratch, { recursive: true, force: true });
});

describe('runtime CLI adapter', () => {
  it('returns the JSON document the runtime printed', async () => {
    const doc = await runtime.run(runtimeCalls.health());
    expect(doc).toMatchObject({ ok: true, defaultAgentId: 'main', heartbeatSeconds: 7200 });
  });

  it('passes arguments as an array, so shell metacharacters reach the runtime verbatim', async () => {
    const hostile = '$(touch /tmp/pwned); `id` && echo "quoted" | cat > x; --apply';
    const doc = fieldsOf(await runtime.run(runtimeCalls.agentMessage('dashboard-agent', hostile)));
    expect(doc.reply).toBe(`received: ${hostile}`);
  });

  it('reports a non-zero exit as failed, naming the exit code and the first stderr line', async () => {
    setFakeMode('exit');
    const error = await failureOf(runtime.run(runtimeCalls.health()));
    expect(error.failure).toBe('failed');
    expect(error.message).toMatch(/code 3/);
    expect(error.message).toMatch(/simulated crash/);
    expect(error.message).not.toMatch(/second line/);
  });

  it('reports stdout that is not JSON as bad_output', async () => {
    setFakeMode('garbage');
    expect((await failureOf(runtime.run(runtimeCalls.health()))).failure).toBe('bad_output');
  });

  it('reports an error field and ok:false as failed, carrying the runtime message', async () => {
    setFakeMode('error-payload');
    const error = await failureOf(runtime.run(runtimeCalls.health()));
    expect(error.failure).toBe('failed');
    expect(error.message).toMatch(/agent main is offline/);
    setFakeMode('not-ok');
    expect((await failureOf(runtime.run(runtimeCalls.health()))).failure).toBe('failed');
  });

  it('kills a runtime that does not answer within the timeout and reports timed_out', async () => {
    setFakeMode('hang');
    const quick = cliRuntime({ executable: fakeRuntimePath, timeoutMs: 300, stateDir: fixtureStateDir, replayMaxBytes: 1024 });
    const error = await failureOf(quick.run(runtimeCalls.health()));
    expect(error.failure).toBe('timed_out');
    expect(error.message).toMatch(/300 ms/);
  });

  it('a call that times out ends its whole process group: no child of the runtime outlives it', async () => {
    setFakeMode('fork-hang');
    const pidFile = path.join(scratch, 'grandchild.pid');
    process.env.FAKE_RUNTIME_PID_FILE = pidFile;
    const quick = cliRuntime({ executable: fakeRuntimePath, timeoutMs: 2_000, stateDir: fixtureStateDir, replayMaxBytes: 1024 });
    expect((await failureOf(quick.run(runtimeCalls.tasksList({})))).failure).toBe('timed_out');
    const grandchild = Number(await readFile(pidFile, 'utf8'));
    expect(grandchild).toBeGreaterThan(0);
    // Killed with the group; the kernel may take a moment to reap it, so wait for the pid to go.
    await vi.waitFor(() => expect(isRunning(grandchild)).toBe(false), { timeout: 5_000, interval: 20 });
  });

  it('times each call by its kind: a slow agent turn is answered where a listing that slow times out', async () => {
    setFakeMode('slow');
    process.env.FAKE_RUNTIME_DELAY_MS = '700';
    const byKind = cliRuntime({
      executable: fakeRuntimePath,
      timeoutMs: 200,
      timeoutsByKind: { turn: 20_000, memory: 20_000 },
      stateDir: fixtureStateDir,
      replayMaxBytes: 1024,
    });
    expect((await failureOf(byKind.run(runtimeCalls.agentsList()))).failure).toBe('timed_out');
    expect(fieldsOf(await byKind.run(runtimeCalls.agentMessage('dashboard-agent', 'hi'))).reply).toBe('received: hi');
    expect(fieldsOf(await byKind.run(runtimeCalls.memoryIndex('main'))).indexed).toBe(42);
    expect((await failureOf(byKind.run(runtimeCalls.systemEvent('wake up')))).failure).toBe('timed_out');
  });

  it('refuses stdout beyond the bound as bad_output instead of buffering it', async () => {
    setFakeMode('huge');
    const small = cliRuntime({
      executable: fakeRuntimePath,
      timeoutMs: 10_000,
      stateDir: fixtureStateDir,
      replayMaxBytes: 1024,
      stdoutMaxBytes: 64 * 1024,
    });
    const error = await failureOf(small.run(runtimeCalls.health()));
    expect(error.failure).toBe('bad_output');
    expect(error.message).toMatch(/more than 65536 bytes/);
  });

  it('reports a missing or non-executable binary as unavailable', async () => {
    const missing = cliRuntime({
      executable: path.join(scratch, 'no-such-runtime'),
      timeoutMs: 1000,
      stateDir: scratch,
      replayMaxBytes: 1,
    });
    expect((await failureOf(missing.run(runtimeCalls.health()))).failure).toBe('unavailable');
    const onPath = cliRuntime({ executable: 'surely-no-runtime-binary-here', timeoutMs: 1000, stateDir: scratch, replayMaxBytes: 1 });
    expect((await failureOf(onPath.run(runtimeCalls.health()))).failure).toBe('unavailable');
    const notExecutable = path.join(scratch, 'plain-file');
    await writeFile(notExecutable, '#!/bin/sh\necho {}\n');
    await chmod(notExecutable, 0o644);
    const plain = cliRuntime({ executable: notExecutable, timeoutMs: 1000, stateDir: scratch, replayMaxBytes: 1 });
    expect((await failureOf(plain.run(runtimeCalls.health()))).failure).toBe('unavailable');
  });

  it('does not hand the bearer token or the database URL to the runtime', async () => {
    const probe = path.join(scratch, 'env-probe.mjs');
    await writeFile(probe, '#!/usr/bin/env node\nprocess.stdout.write(JSON.stringify({ env: Object.keys(process.env) }));\n');
    await chmod(probe, 0o755);
    process.env.DASHBOARD_AUTH_TOKEN = 'marker-secret-token';
    try {
      const doc = fieldsOf(
        await cliRuntime({ executable: probe, timeoutMs: 10_000, stateDir: scratch, replayMaxBytes: 1 }).run(['health', '--json']),
      );
      expect(doc.env).not.toContain('DASHBOARD_AUTH_TOKEN');
      expect(doc.env).not.toContain('DATABASE_URL');
      expect(doc.env).toContain('PATH');
    } finally {
      delete process.env.DASHBOARD_AUTH_TOKEN;
    }
  });

  it('hands the gateway this server was given to the runtime under its own names, unless they are set (RUNTIME_GATEWAY_URL/TOKEN set once)', async () => {
    const probe = path.join(scratch, 'gateway-env-probe.mjs');
    await writeFile(
      probe,
      '#!/usr/bin/env node\nprocess.stdout.write(JSON.stringify({ url: process.env.OPENCLAW_GATEWAY_URL ?? null, token: process.env.OPENCLAW_GATEWAY_TOKEN ?? null }));\n',
    );
    await chmod(probe, 0o755);
    const withGateway = cliRuntime({
      executable: probe,
      timeoutMs: 10_000,
      stateDir: scratch,
      replayMaxBytes: 1,
      gateway: { url: 'https://127.0.0.1:18789', token: 'gateway-secret' },
    });
    expect(await withGateway.run(['cron', 'list', '--json'])).toEqual({ url: 'wss://127.0.0.1:18789', token: 'gateway-secret' });
    process.env.OPENCLAW_GATEWAY_TOKEN = 'the-runtime-own-token';
    try {
      expect(await withGateway.run(['cron', 'list', '--json'])).toEqual({ url: 'wss://127.0.0.1:18789', token: 'the-runtime-own-token' });
    } finally {
      delete process.env.OPENCLAW_GATEWAY_TOKEN;
    }
    const without = cliRuntime({ executable: probe, timeoutMs: 10_000, stateDir: scratch, replayMaxBytes: 1 });
    expect(await without.run(['cron', 'list', '--json'])).toEqual({ url: null, token: null });
  });

  it('logs every call to the call log when asked (the fake records its argument array)', async () => {
    const log = path.join(scratch, 'calls.log');
    process.env.FAKE_RUNTIME_CALL_LOG = log;
    try {
      await runtime.run(runtimeCalls.cronRuns('daily-digest', 2));
      const lines = (await readFile(log, 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines.at(-1)).toEqual(['cron', 'runs', 'daily-digest', '--json', '--limit', '2']);
    } finally {
      delete process.env.FAKE_RUNTIME_CALL_LOG;
    }
  });
});
