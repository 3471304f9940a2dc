import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startChild } from '../support/child-process';

/** `serverless package` (no AWS credentials needed) of the generated serverless.yml. */
const serverless = path.resolve('node_modules/serverless/bin/serverless.js');
const made: string[] = [];
afterAll(async () => {
  for (const dir of made) await rm(dir, { recursive: true, force: true });
});

const TOKEN = 'tok-3f9a-never-in-templates';
const DB_PASSWORD = 'pw-77c1-never-in-templates';

async function packageWith(extra: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string; dir: string }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sls-package-'));
  made.push(dir);
  const env: NodeJS.ProcessEnv = { ...process.env, SLS_TELEMETRY_DISABLED: '1', ...extra };
  for (const key of ['DASHBOARD_AUTH_TOKEN_SSM', 'DATABASE_URL_SSM', 'ALLOW_PUBLIC_API', 'SNAPSHOT_BUCKET', 'CORS_ORIGINS'])
    if (!(key in extra)) delete env[key];
  const child = startChild(process.execPath, [serverless, 'package', '--package', dir], { env });
  const { code } = await child.exited;
  return { code, output: child.output(), dir };
}

// each packaging takes 5-60 s on a busy two-core machine
const PACKAGING_MS = 240_000;

describe('serverless package', () => {
  it(
    'fails with the reason when no token source is configured, even with DASHBOARD_AUTH_TOKEN in the shell',
    async () => {
      const res = await packageWith({ DASHBOARD_AUTH_TOKEN: TOKEN, DATABASE_URL_SSM: '/fleet/dev/database-url' });
      expect(res.code).not.toBe(0);
      expect(res.output).toMatch(/no token source: set DASHBOARD_AUTH_TOKEN_SSM .* or ALLOW_PUBLIC_API=1/);
      expect(await readdir(res.dir)).toEqual([]);
    },
    PACKAGING_MS,
  );

  it(
    'fails without DATABASE_URL_SSM, and on a parameter name that is not a path',
    async () => {
      const noDb = await packageWith({ DASHBOARD_AUTH_TOKEN_SSM: '/fleet/dev/token' });
      expect(noDb.code).not.toBe(0);
      expect(noDb.output).toMatch(/DATABASE_URL_SSM is not set/);
      const badName = await packageWith({ DASHBOARD_AUTH_TOKEN_SSM: 'fleet-token', DATABASE_URL_SSM: '/fleet/dev/database-url' });
      expect(badName.code).not.toBe(0);
      expect(badName.output).toMatch(/DASHBOARD_AUTH_TOKEN_SSM must be a parameter name starting with \//);
    },
    PACKAGING_MS,
  );

  it(
    'with SSM names produces a template free of secrets, with log retention, throttling, CORS origins, least-privilege IAM and zips without source maps',
    async () => {
      const res = await packageWith({
        DASHBOARD_AUTH_TOKEN: TOKEN,
        DATABASE_URL: `postgres://app:${DB_PASSWORD}@db.internal:5432/tasks`,
        DASHBOARD_AUTH_TOKEN_SSM: '/fleet/dev/token',
        DATABASE_URL_SSM: '/aws/reference/secretsmanager/fleet-dev-db',
        SNAPSHOT_BUCKET: 'fleet-dev-snapshots',
        CORS_ORIGINS: 'https://dash.example.com, https://ops.example.com',
      });
      expect(res.code, res.output).toBe(0);
      const files = await readdir(res.dir);
      for (const file of files.filter((f) => f.endsWith('.json'))) {
        const text = await readFile(path.join(res.dir, file), 'utf8');
        expect(text, file).not.toContain(TOKEN);
        expect(text, file).not.toContain(DB_PASSWORD);
      }
      const template = JSON.parse(await readFile(path.join(res.dir, 'cloudformation-template-update-stack.json'), 'utf8'));
      const resources = Object.values(template.Resources) as { Type: string; Properties: Record<string, any> }[]; // eslint-disable-line @typescript-eslint/no-explicit-any
      const functions = resources.filter((r) => r.Type === 'AWS::Lambda::Function');
      expect(functions.length).toBeGreaterThan(30);
      for (const fn of functions) {
        const variables = fn.Properties.Environment.Variables;
        expect(variables).not.toHaveProperty('DASHBOARD_AUTH_TOKEN');
        expect(variables).not.toHaveProperty('DATABASE_URL');
        expect(variables).toMatchObject({
          DASHBOARD_AUTH_TOKEN_SSM: '/fleet/dev/token',
          DATABASE_URL_SSM: '/aws/reference/secretsmanager/fleet-dev-db',
          SNAPSHOT_BUCKET: 'fleet-dev-snapshots',
        });
      }
      const logGroups = resources.filter((r) => r.Type === 'AWS::Logs::LogGroup');
      expect(logGroups).toHaveLength(functions.length);
      for (const group of logGroups) expect(group.Properties.RetentionInDays).toBe(30);
      const stage = resources.find((r) => r.Type === 'AWS::ApiGatewayV2::Stage')!;
      expect(stage.Properties.DefaultRouteSettings).toEqual({ ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 });
      const api = resources.find((r) => r.Type === 'AWS::ApiGatewayV2::Api')!;
      expect(api.Properties.CorsConfiguration.AllowOrigins).toEqual(['https://dash.example.com', 'https://ops.example.com']);
      const statements = JSON.stringify(template.Resources.IamRoleLambdaExecution.Properties.Policies);
      expect(statements).toContain('parameter/fleet/dev/token');
      expect(statements).toContain('secret:fleet-dev-db*');
      expect(statements).toContain('arn:aws:s3:::fleet-dev-snapshots/snapshots/*');

      const { execFileSync } = await import('node:child_process');
      const listing = execFileSync('unzip', ['-l', path.join(res.dir, 'snapshots.zip')], { encoding: 'utf8' });
      expect(listing).toContain('dist/lambda/snapshots.mjs');
      expect(listing).not.toContain('.map');
    },
    PACKAGING_MS,
  );

  it(
    'with ALLOW_PUBLIC_API=1 gets past the token check, and still refuses a malformed CORS origin',
    async () => {
      const res = await packageWith({ ALLOW_PUBLIC_API: '1', DATABASE_URL_SSM: '/fleet/dev/database-url', CORS_ORIGINS: 'not an origin' });
      expect(res.code).not.toBe(0);
      expect(res.output).not.toMatch(/no token source/);
      expect(res.output).toMatch(/CORS_ORIGINS: "not an origin" is not an origin/);
    },
    PACKAGING_MS,
  );
});
