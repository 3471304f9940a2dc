import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { configuredPorts } from '../../infra/app-context';
import { ConfigError, isLoopbackHost, parseConfig } from '../../infra/config';

describe('configuration from the environment', () => {
  it('applies the defaults of the operating contract', () => {
    const cfg = parseConfig({});
    expect(cfg).toMatchObject({
      host: '127.0.0.1',
      port: 3876,
      dataDir: path.resolve('data'),
      databaseUrl: undefined,
      authToken: undefined,
      snapshotDir: path.resolve('data/snapshots'),
      restoreMaxBytes: 100 * 1024 * 1024,
      sessionReplayMaxBytes: 20 * 1024 * 1024,
      runtimeCli: 'runtime',
      dispatcherIntervalMs: 30_000,
      cronManagerPort: 3878,
      logLevel: 'INFO',
      taskServerUrl: 'http://127.0.0.1:3876',
      mcpMutations: false,
    });
  });

  it('finds the runtime where it lives: RUNTIME_CLI, else openclaw on PATH, else runtime; RUNTIME_STATE_DIR, else OPENCLAW_STATE_DIR, else ~/.openclaw when there, else ~/.runtime', () => {
    const home = mkdtempSync(path.join(os.tmpdir(), 'config-home-'));
    const bin = path.join(home, 'bin');
    try {
      mkdirSync(bin);
      expect(parseConfig({ HOME: home, PATH: bin })).toMatchObject({ runtimeCli: 'runtime', runtimeStateDir: path.join(home, '.runtime') });
      writeFileSync(path.join(bin, 'openclaw'), '#!/bin/sh\n', { mode: 0o755 });
      mkdirSync(path.join(home, '.openclaw'));
      expect(parseConfig({ HOME: home, PATH: `/nonexistent${path.delimiter}${bin}` })).toMatchObject({
        runtimeCli: 'openclaw',
        runtimeStateDir: path.join(home, '.openclaw'),
      });
      expect(parseConfig({ HOME: home, PATH: bin, OPENCLAW_STATE_DIR: '/srv/openclaw' }).runtimeStateDir).toBe('/srv/openclaw');
      expect(
        parseConfig({ HOME: home, PATH: bin, RUNTIME_CLI: '/opt/rt', OPENCLAW_STATE_DIR: '/srv/openclaw', RUNTIME_STATE_DIR: '/srv/rt' }),
      ).toMatchObject({
        runtimeCli: '/opt/rt',
        runtimeStateDir: '/srv/rt',
      });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("finds the runtime's gateway: RUNTIME_GATEWAY_URL/TOKEN, else OPENCLAW_GATEWAY_URL/TOKEN, else the runtime's config file; none: no gateway", () => {
    const home = mkdtempSync(path.join(os.tmpdir(), 'config-gateway-'));
    const state = path.join(home, '.openclaw');
    try {
      mkdirSync(state);
      const base = { HOME: home, PATH: '', RUNTIME_STATE_DIR: state };
      expect(parseConfig(base).runtimeGateway).toBeUndefined();
      writeFileSync(
        path.join(state, 'openclaw.json'),
        JSON.stringify({ gateway: { mode: 'local', port: 18799, auth: { mode: 'token', token: 'from-file' } } }),
      );
      expect(parseConfig(base).runtimeGateway).toMatchObject({
        url: 'http://127.0.0.1:18799',
        token: 'from-file',
        source: 'config file',
        timeoutMs: 30_000,
      });
      // the runtime's own variables: its WebSocket address is the same port's HTTP
      expect(
        parseConfig({ ...base, OPENCLAW_GATEWAY_URL: 'ws://127.0.0.1:18800/', OPENCLAW_GATEWAY_TOKEN: 'oc-token' }).runtimeGateway,
      ).toMatchObject({
        url: 'http://127.0.0.1:18800',
        token: 'oc-token',
        source: 'OPENCLAW_GATEWAY_URL',
      });
      expect(
        parseConfig({
          ...base,
          OPENCLAW_GATEWAY_URL: 'ws://127.0.0.1:18800',
          OPENCLAW_GATEWAY_TOKEN: 'oc-token',
          RUNTIME_GATEWAY_URL: 'wss://gw.example:443',
          RUNTIME_GATEWAY_TOKEN: 'ours',
          RUNTIME_GATEWAY_TIMEOUT_MS: '2500',
        }).runtimeGateway,
      ).toEqual({ url: 'https://gw.example', token: 'ours', source: 'RUNTIME_GATEWAY_URL', timeoutMs: 2500 });
      // a token alone goes with the address the config file gives
      expect(parseConfig({ ...base, RUNTIME_GATEWAY_TOKEN: 'ours' }).runtimeGateway).toMatchObject({
        url: 'http://127.0.0.1:18799',
        token: 'ours',
      });
      // a config file the server cannot read as JSON (JSON5 comments) is passed over
      writeFileSync(path.join(state, 'openclaw.json'), '// gateway settings\n{ gateway: { port: 1 } }');
      expect(parseConfig(base).runtimeGateway).toBeUndefined();
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('refuses a gateway address that is not http(s) or ws(s), or that carries credentials, without echoing it', () => {
    expect(() => parseConfig({ RUNTIME_GATEWAY_URL: 'ftp://host' })).toThrow(/RUNTIME_GATEWAY_URL must be an http\(s\) or ws\(s\) URL/);
    let message = '';
    try {
      parseConfig({ RUNTIME_GATEWAY_URL: 'http://user:hunter2@127.0.0.1:1' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/must not carry credentials/);
    expect(message).not.toContain('hunter2');
  });

  it('treats empty variables as unset and derives SNAPSHOT_DIR from DATA_DIR', () => {
    const cfg = parseConfig({ DATABASE_URL: '', DATA_DIR: '/srv/x', DASHBOARD_AUTH_TOKEN: '' });
    expect(cfg.databaseUrl).toBeUndefined();
    expect(cfg.authToken).toBeUndefined();
    expect(cfg.snapshotDir).toBe('/srv/x/snapshots');
  });

  it('refuses malformed values, naming the variable', () => {
    expect(() => parseConfig({ PORT: 'abc' })).toThrow(ConfigError);
    expect(() => parseConfig({ PORT: '70000' })).toThrow(/PORT/);
    expect(() => parseConfig({ DISPATCHER_INTERVAL_MS: '-1' })).toThrow(/DISPATCHER_INTERVAL_MS/);
    expect(() => parseConfig({ LOG_LEVEL: 'LOUD' })).toThrow(/LOG_LEVEL/);
  });

  it('reads the claim lease default and the fleet in-flight cap, refusing values out of range', () => {
    expect(parseConfig({})).toMatchObject({ taskLeaseSeconds: 1800, dispatchMaxInFlight: undefined });
    expect(parseConfig({ TASK_LEASE_SECONDS: '30', DISPATCH_MAX_IN_FLIGHT: '12' })).toMatchObject({
      taskLeaseSeconds: 30,
      dispatchMaxInFlight: 12,
    });
    expect(() => parseConfig({ TASK_LEASE_SECONDS: '29' })).toThrow(/TASK_LEASE_SECONDS/);
    expect(() => parseConfig({ TASK_LEASE_SECONDS: '86401' })).toThrow(/TASK_LEASE_SECONDS/);
    expect(() => parseConfig({ DISPATCH_MAX_IN_FLIGHT: '0' })).toThrow(/DISPATCH_MAX_IN_FLIGHT/);
    expect(() => parseConfig({ DISPATCH_MAX_IN_FLIGHT: 'many' })).toThrow(/DISPATCH_MAX_IN_FLIGHT/);
  });

  it('reads DB_PREPARED_STATEMENTS as 0 or 1 and refuses anything else, naming it', () => {
    expect(parseConfig({ DB_PREPARED_STATEMENTS: '0' }).dbPreparedStatements).toBe(false);
    expect(parseConfig({ DB_PREPARED_STATEMENTS: '1' }).dbPreparedStatements).toBe(true);
    // empty is unset, as for every variable: the default
    expect(parseConfig({ DB_PREPARED_STATEMENTS: '' }).dbPreparedStatements).toBe(true);
    for (const bad of ['yes', 'true', '2', ' 1']) {
      expect(() => parseConfig({ DB_PREPARED_STATEMENTS: bad }), bad).toThrow(/DB_PREPARED_STATEMENTS must be 0 or 1/);
    }
  });

  it('refuses webhooks to loopback and private addresses unless WEBHOOK_ALLOW_PRIVATE=1, and prepares repeated statements by default', async () => {
    const defaults = parseConfig({ DATA_DIR: '/tmp/task-server-config-test' });
    expect(defaults).toMatchObject({
      webhookAllowPrivate: false,
      dbPreparedStatements: true,
      webhookDeliveryIntervalMs: 5000,
      webhookTimeoutMs: 10000,
      auditSearchFoldIntervalMs: 2000,
    });
    // the transport the server is built with, not only the flag
    expect(await configuredPorts(defaults).webhooks.refusedDestination('http://127.0.0.1:9/hook')).toMatch(/loopback or private/);
    const allowing = parseConfig({ DATA_DIR: '/tmp/task-server-config-test', WEBHOOK_ALLOW_PRIVATE: '1', DB_PREPARED_STATEMENTS: '0' });
    expect(allowing).toMatchObject({ webhookAllowPrivate: true, dbPreparedStatements: false });
    expect(await configuredPorts(allowing).webhooks.refusedDestination('http://127.0.0.1:9/hook')).toBeUndefined();
    expect(() => parseConfig({ WEBHOOK_ALLOW_PRIVATE: 'yes' })).toThrow(/WEBHOOK_ALLOW_PRIVATE/);
    expect(() => parseConfig({ DB_PREPARED_STATEMENTS: 'true' })).toThrow(/DB_PREPARED_STATEMENTS/);
  });

  it('accepts any postgres:// or postgresql:// URL with a host, and refuses every other DATABASE_URL without echoing it', () => {
    const password = fc.stringMatching(/^[A-Za-z0-9._~-]{1,20}$/);
    fc.assert(
      fc.property(
        fc.constantFrom('postgres', 'postgresql'),
        fc.domain(),
        password,
        fc.integer({ min: 1, max: 65535 }),
        (scheme, host, pw, port) => {
          const url = `${scheme}://app:${pw}@${host}:${port}/tasks?sslmode=require`;
          expect(parseConfig({ DATABASE_URL: url }).databaseUrl).toBe(url);
        },
      ),
    );
    expect(parseConfig({ DATABASE_URL: 'postgres:///tasks?host=/var/run/postgresql' }).databaseUrl).toContain('host=');
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ minLength: 1 }),
          fc.constantFrom('garbage', 'postgres://', 'mysql://u:pw@h/db', 'http://h/db', 'localhost:5432'),
        ),
        (value) => {
          fc.pre(!/^postgres(ql)?:\/\/[^/?#]/.test(value.trim()) && value.trim() !== '');
          let message = '';
          try {
            parseConfig({ DATABASE_URL: value });
          } catch (err) {
            message = (err as Error).message;
          }
          // always this exact text: the value, which may hold a password, is never echoed
          expect(message).toBe(
            'DATABASE_URL: DATABASE_URL must be a connection URL such as postgres://user:password@host:5432/dbname (postgres:// or postgresql://, with a host)',
          );
        },
      ),
    );
  });

  it('enables MCP mutations only for RUNTIME_MCP_MUTATIONS=1', () => {
    expect(parseConfig({ RUNTIME_MCP_MUTATIONS: '1' }).mcpMutations).toBe(true);
    expect(parseConfig({ RUNTIME_MCP_MUTATIONS: 'true' }).mcpMutations).toBe(false);
  });

  it('knows loopback hosts', () => {
    for (const h of ['127.0.0.1', 'localhost', '::1', '[::1]', '127.1.2.3']) expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['0.0.0.0', '::', '192.168.1.4', 'example.com', '128.0.0.1']) expect(isLoopbackHost(h), h).toBe(false);
  });
});
