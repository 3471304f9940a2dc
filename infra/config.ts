import { homedir } from 'node:os';
import path from 'node:path';
import * as z from 'zod';

/**
 * The environment of ../shared/operating-contract.md, read and validated once.
 * A bad value stops the process with a message naming the variable.
 */
const MB = 1024 * 1024;

const intFrom = (name: string, min: number, max: number) =>
  z.coerce
    .number({ message: `${name} must be a number` })
    .int(`${name} must be a whole number`)
    .min(min, `${name} must be at least ${min}`)
    .max(max, `${name} must be at most ${max}`);

const envSchema = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: intFrom('PORT', 0, 65535).default(3876),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z.string().min(1).optional(),
  DASHBOARD_AUTH_TOKEN: z.string().min(1).optional(),
  SNAPSHOT_DIR: z.string().min(1).optional(),
  RESTORE_MAX_BYTES: intFrom('RESTORE_MAX_BYTES', 1, Number.MAX_SAFE_INTEGER).default(100 * MB),
  SESSION_REPLAY_MAX_BYTES: intFrom('SESSION_REPLAY_MAX_BYTES', 1, Number.MAX_SAFE_INTEGER).default(20 * MB),
  RUNTIME_CLI: z.string().min(1).default('runtime'),
  RUNTIME_CLI_TIMEOUT_MS: intFrom('RUNTIME_CLI_TIMEOUT_MS', 1, 600_000).default(15_000),
  RUNTIME_STATE_DIR: z.string().min(1).optional(),
  DISPATCHER_INTERVAL_MS: intFrom('DISPATCHER_INTERVAL_MS', 0, 86_400_000).default(30_000),
  CRON_MANAGER_PORT: intFrom('CRON_MANAGER_PORT', 0, 65535).default(3878),
  LOG_LEVEL: z
    .string()
    .transform((v) => v.toUpperCase())
    .pipe(z.enum(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT', 'CRITICAL']))
    .default('INFO'),
  TASK_SERVER_URL: z.string().min(1).default('http://127.0.0.1:3876'),
  RUNTIME_MCP_MUTATIONS: z.string().optional(),
  MODEL_PRICES_FILE: z.string().min(1).optional(),
  DASHBOARD_UI_DIR: z.string().min(1).optional(),
});

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | undefined;
  authToken: string | undefined;
  snapshotDir: string;
  restoreMaxBytes: number;
  sessionReplayMaxBytes: number;
  runtimeCli: string;
  runtimeCliTimeoutMs: number;
  runtimeStateDir: string;
  dispatcherIntervalMs: number;
  cronManagerPort: number;
  logLevel: string;
  taskServerUrl: string;
  mcpMutations: boolean;
  /** JSON price table used to price usage reported without a cost (infra/costs/model-prices.ts). */
  modelPricesFile: string | undefined;
  /** A browser front end's static files, served by the runner at `/` (infra/http/static-ui.ts). */
  uiDir: string | undefined;
}

export class ConfigError extends Error {}

/** Empty strings count as unset, as shells and CI files often export `VAR=`. */
function withoutEmpty(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => !!e[1] && e[1].length > 0));
}

function parseEnv<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv): z.output<S> {
  const parsed = schema.safeParse(withoutEmpty(env));
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  }
  return parsed.data;
}

export function parseConfig(env: NodeJS.ProcessEnv): Config {
  const e = parseEnv(envSchema, env);
  const dataDir = path.resolve(e.DATA_DIR);
  return {
    host: e.HOST,
    port: e.PORT,
    dataDir,
    databaseUrl: e.DATABASE_URL,
    authToken: e.DASHBOARD_AUTH_TOKEN,
    snapshotDir: path.resolve(e.SNAPSHOT_DIR ?? path.join(dataDir, 'snapshots')),
    restoreMaxBytes: e.RESTORE_MAX_BYTES,
    sessionReplayMaxBytes: e.SESSION_REPLAY_MAX_BYTES,
    runtimeCli: e.RUNTIME_CLI,
    runtimeCliTimeoutMs: e.RUNTIME_CLI_TIMEOUT_MS,
    runtimeStateDir: path.resolve(e.RUNTIME_STATE_DIR ?? path.join(homedir(), '.runtime')),
    dispatcherIntervalMs: e.DISPATCHER_INTERVAL_MS,
    cronManagerPort: e.CRON_MANAGER_PORT,
    logLevel: e.LOG_LEVEL,
    taskServerUrl: e.TASK_SERVER_URL,
    mcpMutations: e.RUNTIME_MCP_MUTATIONS === '1',
    modelPricesFile: e.MODEL_PRICES_FILE ? path.resolve(e.MODEL_PRICES_FILE) : undefined,
    uiDir: e.DASHBOARD_UI_DIR ? path.resolve(e.DASHBOARD_UI_DIR) : undefined,
  };
}

/** What the MCP tool server reads: its own three variables, so a task-server variable it never uses cannot stop it. */
export interface McpConfig {
  taskServerUrl: string;
  authToken: string | undefined;
  mcpMutations: boolean;
}

export function parseMcpConfig(env: NodeJS.ProcessEnv): McpConfig {
  const e = parseEnv(envSchema.pick({ TASK_SERVER_URL: true, DASHBOARD_AUTH_TOKEN: true, RUNTIME_MCP_MUTATIONS: true }), env);
  return { taskServerUrl: e.TASK_SERVER_URL, authToken: e.DASHBOARD_AUTH_TOKEN, mcpMutations: e.RUNTIME_MCP_MUTATIONS === '1' };
}

let cached: Config | undefined;

/** The process configuration, parsed on first use. Tests that change the environment call resetConfig(). */
export function config(): Config {
  cached ??= parseConfig(process.env);
  return cached;
}

export function resetConfig(): void {
  cached = undefined;
}

/** Loopback per the startup rule of spec 01: binding anywhere else needs a token. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}
