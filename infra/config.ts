import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import * as z from 'zod';
import { leaseRules } from '../core/agents/leases';

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

/**
 * An unreachable database is a fallback (spec 01); an unparsable connection string is a mistake to
 * refuse at start. A host may also come as ?host=/socket/dir, as libpq allows.
 */
function isPostgresUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === 'postgres:' || url.protocol === 'postgresql:') && (url.hostname !== '' || url.searchParams.has('host'));
}

/** A gateway address: the runtime names its WebSocket (ws://), whose HTTP routes share the port. */
function isGatewayUrl(value: string): boolean {
  try {
    return ['http:', 'https:', 'ws:', 'wss:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

const envSchema = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: intFrom('PORT', 0, 65535).default(3876),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .refine(isPostgresUrl, {
      // the value itself is never echoed: it may hold a password
      message:
        'DATABASE_URL must be a connection URL such as postgres://user:password@host:5432/dbname (postgres:// or postgresql://, with a host)',
    })
    .optional(),
  DASHBOARD_AUTH_TOKEN: z.string().min(1).optional(),
  SNAPSHOT_DIR: z.string().min(1).optional(),
  SNAPSHOT_BUCKET: z
    .string()
    .regex(
      /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/,
      'SNAPSHOT_BUCKET must be an S3 bucket name (3-63 lowercase letters, digits, dots, hyphens)',
    )
    .optional(),
  SNAPSHOT_PREFIX: z
    .string()
    .regex(/^([A-Za-z0-9._-]+\/)*$/, 'SNAPSHOT_PREFIX must be folder names each ending in / (e.g. snapshots/)')
    .default('snapshots/'),
  S3_ENDPOINT: z.url({ message: 'S3_ENDPOINT must be a URL such as http://127.0.0.1:9000' }).optional(),
  RESTORE_MAX_BYTES: intFrom('RESTORE_MAX_BYTES', 1, Number.MAX_SAFE_INTEGER).default(100 * MB),
  SESSION_REPLAY_MAX_BYTES: intFrom('SESSION_REPLAY_MAX_BYTES', 1, Number.MAX_SAFE_INTEGER).default(20 * MB),
  RUNTIME_CLI: z.string().min(1).optional(),
  RUNTIME_CLI_TIMEOUT_MS: intFrom('RUNTIME_CLI_TIMEOUT_MS', 1, 600_000).default(15_000),
  RUNTIME_MEMORY_TIMEOUT_MS: intFrom('RUNTIME_MEMORY_TIMEOUT_MS', 1, 3_600_000).default(60_000),
  RUNTIME_WAKE_TIMEOUT_MS: intFrom('RUNTIME_WAKE_TIMEOUT_MS', 1, 3_600_000).default(60_000),
  RUNTIME_TURN_TIMEOUT_MS: intFrom('RUNTIME_TURN_TIMEOUT_MS', 1, 3_600_000).default(600_000),
  RUNTIME_STATE_DIR: z.string().min(1).optional(),
  OPENCLAW_STATE_DIR: z.string().min(1).optional(),
  RUNTIME_GATEWAY_URL: z
    .string()
    .refine(isGatewayUrl, { message: 'RUNTIME_GATEWAY_URL must be an http(s) or ws(s) URL such as http://127.0.0.1:18789' })
    .optional(),
  RUNTIME_GATEWAY_TOKEN: z.string().min(1).optional(),
  OPENCLAW_GATEWAY_URL: z
    .string()
    .refine(isGatewayUrl, { message: 'OPENCLAW_GATEWAY_URL must be an http(s) or ws(s) URL such as ws://127.0.0.1:18789' })
    .optional(),
  OPENCLAW_GATEWAY_TOKEN: z.string().min(1).optional(),
  RUNTIME_GATEWAY_TIMEOUT_MS: intFrom('RUNTIME_GATEWAY_TIMEOUT_MS', 1, 600_000).default(30_000),
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
  DB_CONNECT_TIMEOUT_MS: intFrom('DB_CONNECT_TIMEOUT_MS', 1, 600_000).default(3_000),
  DB_STATEMENT_TIMEOUT_MS: intFrom('DB_STATEMENT_TIMEOUT_MS', 0, 3_600_000).default(5_000),
  DB_PREPARED_STATEMENTS: z.enum(['0', '1'], { message: 'DB_PREPARED_STATEMENTS must be 0 or 1' }).default('1'),
  TASK_LEASE_SECONDS: intFrom('TASK_LEASE_SECONDS', leaseRules.minSeconds, leaseRules.maxSeconds).default(leaseRules.defaultSeconds),
  DISPATCH_MAX_IN_FLIGHT: intFrom('DISPATCH_MAX_IN_FLIGHT', 1, 1_000_000).optional(),
  DASHBOARD_UI_DIR: z.string().min(1).optional(),
  WEBHOOK_DELIVERY_INTERVAL_MS: intFrom('WEBHOOK_DELIVERY_INTERVAL_MS', 0, 86_400_000).default(5_000),
  AUDIT_SEARCH_FOLD_INTERVAL_MS: intFrom('AUDIT_SEARCH_FOLD_INTERVAL_MS', 0, 86_400_000).default(2_000),
  WEBHOOK_TIMEOUT_MS: intFrom('WEBHOOK_TIMEOUT_MS', 100, 50_000).default(10_000),
  WEBHOOK_ALLOW_PRIVATE: z.enum(['0', '1'], { message: 'WEBHOOK_ALLOW_PRIVATE must be 0 or 1' }).default('0'),
});

export interface RuntimeGatewayConfig {
  /** http(s) base URL, without credentials in it. */
  url: string;
  /** Secret: sent to the gateway only, never logged or answered. */
  token: string | undefined;
  timeoutMs: number;
  /** Where the address came from, for health-status and logs. */
  source: 'RUNTIME_GATEWAY_URL' | 'OPENCLAW_GATEWAY_URL' | 'config file';
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

/** The contract's runtime executable, and the released runtime's (OpenClaw), found where it is installed. */
const CONTRACT_RUNTIME_CLI = 'runtime';
const RELEASED_RUNTIME_CLI = 'openclaw';

/** Whether `name` is an executable file in one of PATH's folders. */
function executableOnPath(name: string, searchPath: string | undefined): boolean {
  return (searchPath ?? '').split(path.delimiter).some((dir) => {
    if (!dir) return false;
    try {
      accessSync(path.join(dir, name), constants.X_OK);
      return statSync(path.join(dir, name)).isFile();
    } catch {
      return false;
    }
  });
}

/**
 * RUNTIME_STATE_DIR, else the runtime's own OPENCLAW_STATE_DIR, else where the runtime keeps its
 * state by default (~/.openclaw) when it is there, else the contract's ~/.runtime.
 */
function runtimeStateDir(configured: string | undefined, home: string): string {
  if (configured) return path.resolve(configured);
  const released = path.join(home, '.openclaw');
  return existsSync(released) ? released : path.join(home, '.runtime');
}

/** The runtime's own default gateway port (its docs: `--port` > OPENCLAW_GATEWAY_PORT > gateway.port > 18789). */
const RUNTIME_GATEWAY_DEFAULT_PORT = 18789;

/** The HTTP base of a gateway address: ws(s) becomes http(s) (one port serves both), no trailing slash. */
function httpBaseOf(value: string): string {
  const url = new URL(value);
  if (url.protocol === 'ws:') url.protocol = 'http:';
  if (url.protocol === 'wss:') url.protocol = 'https:';
  if (url.username || url.password) throw new ConfigError('the gateway URL must not carry credentials: set RUNTIME_GATEWAY_TOKEN instead');
  return url.toString().replace(/\/+$/, '');
}

/**
 * The gateway of the runtime's config file (`openclaw.json` in its state directory, or
 * OPENCLAW_CONFIG_PATH): loopback at `gateway.port` with `gateway.auth.token`, when the file is
 * plain JSON and configures a gateway. A file the server cannot read this way (JSON5 with comments,
 * a token given as a secret reference) is passed over: RUNTIME_GATEWAY_URL/TOKEN say it instead.
 */
function gatewayOfConfigFile(file: string): { url: string; token: string | undefined } | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  const gateway = typeof doc === 'object' && doc !== null ? (doc as { gateway?: unknown }).gateway : undefined;
  if (typeof gateway !== 'object' || gateway === null) return undefined;
  const g = gateway as { port?: unknown; auth?: { token?: unknown } };
  const port =
    typeof g.port === 'number' && Number.isInteger(g.port) && g.port > 0 && g.port < 65536 ? g.port : RUNTIME_GATEWAY_DEFAULT_PORT;
  const token = typeof g.auth?.token === 'string' && g.auth.token.length > 0 && !g.auth.token.startsWith('${') ? g.auth.token : undefined;
  return { url: `http://127.0.0.1:${port}`, token };
}

/**
 * RUNTIME_GATEWAY_URL/TOKEN, else the runtime's own OPENCLAW_GATEWAY_URL/TOKEN, else its config file;
 * none of them: no gateway (sessions from the state directory's files). A token set without a URL
 * goes with whichever address is found.
 */
function runtimeGateway(
  e: {
    RUNTIME_GATEWAY_URL?: string;
    RUNTIME_GATEWAY_TOKEN?: string;
    OPENCLAW_GATEWAY_URL?: string;
    OPENCLAW_GATEWAY_TOKEN?: string;
    RUNTIME_GATEWAY_TIMEOUT_MS: number;
  },
  configFile: string,
): RuntimeGatewayConfig | undefined {
  const explicitToken = e.RUNTIME_GATEWAY_TOKEN ?? e.OPENCLAW_GATEWAY_TOKEN;
  const timeoutMs = e.RUNTIME_GATEWAY_TIMEOUT_MS;
  if (e.RUNTIME_GATEWAY_URL)
    return { url: httpBaseOf(e.RUNTIME_GATEWAY_URL), token: explicitToken, timeoutMs, source: 'RUNTIME_GATEWAY_URL' };
  if (e.OPENCLAW_GATEWAY_URL)
    return { url: httpBaseOf(e.OPENCLAW_GATEWAY_URL), token: explicitToken, timeoutMs, source: 'OPENCLAW_GATEWAY_URL' };
  const fromFile = gatewayOfConfigFile(configFile);
  return fromFile && { url: fromFile.url, token: explicitToken ?? fromFile.token, timeoutMs, source: 'config file' };
}

/** The process configuration: its type is what this answers (one place per variable beside the schema). */
export type Config = ReturnType<typeof parseConfig>;

export function parseConfig(env: NodeJS.ProcessEnv) {
  const e = parseEnv(envSchema, env);
  const dataDir = path.resolve(e.DATA_DIR);
  const stateDir = runtimeStateDir(e.RUNTIME_STATE_DIR ?? e.OPENCLAW_STATE_DIR, env.HOME || homedir());
  return {
    host: e.HOST,
    port: e.PORT,
    dataDir,
    databaseUrl: e.DATABASE_URL,
    authToken: e.DASHBOARD_AUTH_TOKEN,
    snapshotDir: path.resolve(e.SNAPSHOT_DIR ?? path.join(dataDir, 'snapshots')),
    /** When set, snapshot artifacts live in this S3 bucket instead of snapshotDir (infra/snapshots/snapshot-store.ts). */
    snapshotBucket: e.SNAPSHOT_BUCKET,
    snapshotPrefix: e.SNAPSHOT_PREFIX,
    /** An S3-compatible endpoint (MinIO, LocalStack); unset means AWS S3 of AWS_REGION. */
    s3Endpoint: e.S3_ENDPOINT,
    restoreMaxBytes: e.RESTORE_MAX_BYTES,
    sessionReplayMaxBytes: e.SESSION_REPLAY_MAX_BYTES,
    runtimeCli: e.RUNTIME_CLI ?? (executableOnPath(RELEASED_RUNTIME_CLI, env.PATH) ? RELEASED_RUNTIME_CLI : CONTRACT_RUNTIME_CLI),
    runtimeCliTimeoutMs: e.RUNTIME_CLI_TIMEOUT_MS,
    /** Calls slower than a listing, by kind (core/runtime/calls.ts). */
    runtimeTimeoutsByKind: { memory: e.RUNTIME_MEMORY_TIMEOUT_MS, wake: e.RUNTIME_WAKE_TIMEOUT_MS, turn: e.RUNTIME_TURN_TIMEOUT_MS },
    runtimeStateDir: stateDir,
    /**
     * The released runtime's gateway, for sessions and transcripts (docs/adr/0010-reaching-the-released-runtime.md);
     * undefined: the state directory's files, as the contract and older installs keep them.
     */
    runtimeGateway: runtimeGateway(
      e,
      env.OPENCLAW_CONFIG_PATH ? path.resolve(env.OPENCLAW_CONFIG_PATH) : path.join(stateDir, 'openclaw.json'),
    ),
    dispatcherIntervalMs: e.DISPATCHER_INTERVAL_MS,
    /** The runner's webhook delivery pass every this many ms (0: off; the scheduled Lambda runs it too). */
    webhookDeliveryIntervalMs: e.WEBHOOK_DELIVERY_INTERVAL_MS,
    /** The runner's audit search fold every this many ms (0: off; dispatcher passes fold as well). */
    auditSearchFoldIntervalMs: e.AUDIT_SEARCH_FOLD_INTERVAL_MS,
    /** How long a receiver has to answer one delivery. */
    webhookTimeoutMs: e.WEBHOOK_TIMEOUT_MS,
    /** Deliver to loopback and private addresses (tests, a receiver on the same network); refused by default. */
    webhookAllowPrivate: e.WEBHOOK_ALLOW_PRIVATE === '1',
    cronManagerPort: e.CRON_MANAGER_PORT,
    logLevel: e.LOG_LEVEL,
    taskServerUrl: e.TASK_SERVER_URL,
    mcpMutations: e.RUNTIME_MCP_MUTATIONS === '1',
    /** JSON price table used to price usage reported without a cost (infra/costs/model-prices.ts). */
    modelPricesFile: e.MODEL_PRICES_FILE ? path.resolve(e.MODEL_PRICES_FILE) : undefined,
    /** Opening a database connection or waiting for a pooled one (infra/db/pg-db.ts). */
    dbConnectTimeoutMs: e.DB_CONNECT_TIMEOUT_MS,
    /** Each statement's limit, a hung server included; 0 means none. Migrations run without it. */
    dbStatementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS,
    /** Repeated statements sent as named prepared statements (infra/db/pg-db.ts StatementNames). */
    dbPreparedStatements: e.DB_PREPARED_STATEMENTS === '1',
    /** The lease of a task claim that names none. */
    taskLeaseSeconds: e.TASK_LEASE_SECONDS,
    /** Live runs the whole fleet may hold at once; undefined: no fleet cap. */
    dispatchMaxInFlight: e.DISPATCH_MAX_IN_FLIGHT,
    /** A browser front end's static files, served by the runner at `/` (infra/http/static-ui.ts). */
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
