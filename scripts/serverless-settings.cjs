// Values serverless.yml takes from the shell at `serverless package|deploy|offline` time, computed
// here rather than with ${env:…} so that (1) no secret value is ever written into the template or
// serverless-state.json, (2) packaging without a token source stops with a reason, and (3) under
// `serverless offline` every documented variable reaches the handlers, as it does for `npm start`.
// serverless.yml refers to these exports as ${file(./scripts/serverless-settings.cjs):<name>}.
'use strict';
const { readFileSync } = require('node:fs');
const net = require('node:net');
const path = require('node:path');

/** The documented variables: the names of .env.example, the one list the README table is checked against. */
function documentedVariables() {
  const text = readFileSync(path.join(__dirname, '..', '.env.example'), 'utf8');
  return [...text.matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]);
}

const set = (name) => typeof process.env[name] === 'string' && process.env[name] !== '';
const command = () => process.argv.slice(2).find((a) => !a.startsWith('-')) ?? '';
const isOffline = () => command() === 'offline';

/**
 * Values that must never reach a template: the first two are resolved at cold start from SSM instead
 * (infra/secrets/secret-parameters.ts); the runtime gateway's tokens belong to a server beside the runtime.
 */
const SECRETS = ['DASHBOARD_AUTH_TOKEN', 'DATABASE_URL', 'RUNTIME_GATEWAY_TOKEN', 'OPENCLAW_GATEWAY_TOKEN'];
/** Meaningful to the local runner only; on Lambda they would mislead (a port, a path of the packaging machine). */
const LOCAL_ONLY = [
  'HOST',
  'PORT',
  'DATA_DIR',
  'SNAPSHOT_DIR',
  'RUNTIME_STATE_DIR',
  'OPENCLAW_STATE_DIR',
  'DISPATCHER_INTERVAL_MS',
  'CRON_MANAGER_PORT',
  'TASK_SERVER_URL',
  'RUNTIME_MCP_MUTATIONS',
  'TEST_DATABASE_URL',
  'LAMBDA_PORT',
];
/** Read by this file at packaging time, not by the handlers. */
const PACKAGING_ONLY = [
  'ALLOW_PUBLIC_API',
  'CORS_ORIGINS',
  'LOG_RETENTION_DAYS',
  'THROTTLE_RATE_LIMIT',
  'THROTTLE_BURST_LIMIT',
  'LAMBDA_SOURCE_MAPS',
];

function isLoopback(host) {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

function fail(reason) {
  const error = new Error(`fleet-task-server: ${reason}`);
  error.stack = error.message; // serverless prints the stack: the reason alone says it all
  throw error;
}

/** Stops `serverless package|deploy` when the API would be public by accident or would have no database. */
function checkDeployable() {
  if (isOffline()) {
    const host = process.env.HOST || '127.0.0.1';
    if (!isLoopback(host) && !set('DASHBOARD_AUTH_TOKEN') && !set('DASHBOARD_AUTH_TOKEN_SSM')) {
      fail(
        `HOST=${host} is not a loopback address and DASHBOARD_AUTH_TOKEN is not set; set a token or bind to 127.0.0.1 (the runner's rule)`,
      );
    }
    return 'offline';
  }
  if (!['package', 'deploy'].includes(command())) return command();
  if (!set('DASHBOARD_AUTH_TOKEN_SSM') && process.env.ALLOW_PUBLIC_API !== '1') {
    fail(
      'no token source: set DASHBOARD_AUTH_TOKEN_SSM to the name of an SSM SecureString parameter (or /aws/reference/secretsmanager/<secret>) holding the bearer token, ' +
        'or ALLOW_PUBLIC_API=1 to deploy every route without authentication on purpose. See docs/deploy-aws.md.',
    );
  }
  if (!set('DATABASE_URL_SSM')) {
    fail(
      'DATABASE_URL_SSM is not set: Lambda has no embedded PostgreSQL; store the connection string in an SSM SecureString parameter and name it here. See docs/deploy-aws.md.',
    );
  }
  for (const name of ['DASHBOARD_AUTH_TOKEN_SSM', 'DATABASE_URL_SSM']) {
    if (set(name) && !process.env[name].startsWith('/'))
      fail(`${name} must be a parameter name starting with /, got ${JSON.stringify(process.env[name].slice(0, 40))}`);
  }
  return command();
}

/** provider.environment. */
function environment() {
  checkDeployable();
  const names = documentedVariables();
  if (isOffline()) {
    // the same variables `npm start` reads, nothing forced: DATA_DIR stays the project's ./data
    return Object.fromEntries(names.filter((n) => set(n) && !PACKAGING_ONLY.includes(n)).map((n) => [n, process.env[n]]));
  }
  const env = { NODE_OPTIONS: '--enable-source-maps', DATA_DIR: '/tmp/task-server', LOG_LEVEL: process.env.LOG_LEVEL || 'INFO' };
  for (const name of names) {
    if (SECRETS.includes(name) || LOCAL_ONLY.includes(name) || PACKAGING_ONLY.includes(name) || !set(name)) continue;
    env[name] = process.env[name];
  }
  // RDS Proxy (docs/deploy-aws.md) pins a session to one database connection once it prepares a named statement
  if (!set('DB_PREPARED_STATEMENTS')) env.DB_PREPARED_STATEMENTS = '0';
  return env;
}

function parameterArn(name) {
  const secret = /^\/aws\/reference\/secretsmanager\/(.+)$/.exec(name);
  if (secret) return { 'Fn::Sub': `arn:\${AWS::Partition}:secretsmanager:\${AWS::Region}:\${AWS::AccountId}:secret:${secret[1]}*` };
  return { 'Fn::Sub': `arn:\${AWS::Partition}:ssm:\${AWS::Region}:\${AWS::AccountId}:parameter${name}` };
}

/** provider.iam.role.statements: read the two secrets, and the snapshot bucket when there is one. */
function iamStatements() {
  const statements = [];
  const names = ['DASHBOARD_AUTH_TOKEN_SSM', 'DATABASE_URL_SSM'].filter(set).map((n) => process.env[n]);
  if (names.length) {
    statements.push({
      Effect: 'Allow',
      Action: ['ssm:GetParameter'],
      Resource: names.map((n) => ({ 'Fn::Sub': `arn:\${AWS::Partition}:ssm:\${AWS::Region}:\${AWS::AccountId}:parameter${n}` })),
    });
    const secrets = names.filter((n) => n.startsWith('/aws/reference/secretsmanager/'));
    if (secrets.length)
      statements.push({ Effect: 'Allow', Action: ['secretsmanager:GetSecretValue'], Resource: secrets.map(parameterArn) });
    // SecureString parameters under the AWS-managed key; a customer key needs its own kms:Decrypt grant
    statements.push({
      Effect: 'Allow',
      Action: ['kms:Decrypt'],
      Resource: '*',
      Condition: { StringEquals: { 'kms:ViaService': { 'Fn::Sub': 'ssm.${AWS::Region}.amazonaws.com' } } },
    });
  }
  if (set('SNAPSHOT_BUCKET')) {
    const bucket = process.env.SNAPSHOT_BUCKET;
    const prefix = process.env.SNAPSHOT_PREFIX || 'snapshots/';
    statements.push({
      Effect: 'Allow',
      Action: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
      Resource: `arn:aws:s3:::${bucket}/${prefix}*`,
    });
    statements.push({
      Effect: 'Allow',
      Action: ['s3:ListBucket'],
      Resource: `arn:aws:s3:::${bucket}`,
      Condition: { StringLike: { 's3:prefix': [`${prefix}*`] } },
    });
  }
  return statements;
}

/** httpApi.cors.allowedOrigins: CORS_ORIGINS (comma-separated), or any origin as the spec's runner answers. */
function corsOrigins() {
  const list = (process.env.CORS_ORIGINS || '*')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  for (const origin of list) {
    if (origin !== '*' && !/^https?:\/\/[^/\s]+$/.test(origin))
      fail(`CORS_ORIGINS: ${JSON.stringify(origin)} is not an origin such as https://dashboard.example.com`);
  }
  return list;
}

function positiveInt(name, fallback) {
  if (!set(name)) return fallback;
  const n = Number(process.env[name]);
  if (!Number.isInteger(n) || n <= 0) fail(`${name} must be a positive whole number`);
  return n;
}

/** The default route throttling of the HTTP API stage (resources.extensions.HttpApiStage). */
function throttling() {
  return { ThrottlingRateLimit: positiveInt('THROTTLE_RATE_LIMIT', 50), ThrottlingBurstLimit: positiveInt('THROTTLE_BURST_LIMIT', 100) };
}

function logRetentionDays() {
  return positiveInt('LOG_RETENTION_DAYS', 30);
}

/** serverless-offline's Lambda port: LAMBDA_PORT, else a free one, so two offline instances never collide on 3002. */
async function lambdaPort() {
  if (set('LAMBDA_PORT')) return positiveInt('LAMBDA_PORT', 0);
  if (!isOffline()) return 3002;
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

module.exports = {
  environment,
  iamStatements,
  corsOrigins,
  throttling,
  logRetentionDays,
  lambdaPort,
  checkDeployable,
  documentedVariables,
};
