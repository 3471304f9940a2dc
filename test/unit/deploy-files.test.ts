import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

/**
 * The container and service files, checked against the README and each other (no Docker engine
 * runs here, so nothing is built): a file that drifts from what the README promises fails here.
 */
const read = (file: string) => readFileSync(file, 'utf8');
const readme = read('README.md');

/** Variable names in the first column of the README's variable tables. */
function readmeVariables(): Set<string> {
  return new Set([...readme.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]!));
}

const { documentedVariables, environment } = createRequire(import.meta.url)('../../scripts/serverless-settings.cjs') as {
  documentedVariables(): string[];
  environment(): Record<string, string>;
};

/** The FROM stages of the Dockerfile and the instructions of each. */
function dockerStages(): string[][] {
  const lines = read('Dockerfile')
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const stages: string[][] = [];
  for (const line of lines) {
    if (/^FROM\s/i.test(line)) stages.push([]);
    stages.at(-1)?.push(line);
  }
  return stages;
}

describe('.env.example', () => {
  it('lists exactly the variables of the README tables, each once', () => {
    const listed = documentedVariables();
    expect(new Set(listed).size).toBe(listed.length);
    expect([...new Set(listed)].sort()).toEqual([...readmeVariables()].sort());
  });

  it('sets nothing by default: every assignment is commented out', () => {
    const active = read('.env.example')
      .split('\n')
      .filter((l) => /^[A-Z][A-Z0-9_]*=/.test(l));
    expect(active).toEqual([]);
  });

  it("covers every variable the server reads (the operating contract's names, as infra/config.ts parses them)", () => {
    // the repository's own copy of the contract: a CI checkout has nothing beside it
    const config = read('infra/config.ts');
    const names = [...config.matchAll(/^ {2}([A-Z][A-Z0-9_]+): /gm)].map((m) => m[1]!);
    expect(names.length).toBeGreaterThan(20);
    expect(names.filter((n) => !documentedVariables().includes(n))).toEqual([]);
  });
});

describe('Dockerfile', () => {
  it('is multi-stage and the final stage runs node dist/server.js as a non-root user', () => {
    const stages = dockerStages();
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const final = stages.at(-1)!;
    expect(final[0]).toMatch(/^FROM node:24/);
    const user = final.filter((l) => /^USER\s/.test(l)).at(-1);
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^USER\s+(root|0)(:|\s|$)/);
    expect(final.at(-1)).toBe('CMD ["node", "dist/server.js"]');
    expect(final.some((l) => /^COPY --from=build \/app\/dist /.test(l))).toBe(true);
    expect(stages[0]!.some((l) => l.includes('npm ci'))).toBe(true);
  });

  it('checks health on /api/health at the port it exposes, and keeps data in a volume', () => {
    const final = dockerStages().at(-1)!;
    const health = final.find((l) => l.startsWith('HEALTHCHECK'));
    expect(health).toMatch(/\/api\/health/);
    const port = final.join('\n').match(/PORT=(\d+)/)?.[1];
    expect(final).toContain(`EXPOSE ${port}`);
    expect(final.join('\n')).toMatch(/DATA_DIR=\/data/);
    expect(final).toContain('VOLUME ["/data"]');
  });

  it('runs with two malloc arenas, as the systemd unit does (docs/operations.md "Memory")', () => {
    expect(dockerStages().at(-1)!.join('\n')).toMatch(/\bMALLOC_ARENA_MAX=2\b/);
    expect(read('deploy/systemd/fleet-task-server.service')).toMatch(/^Environment=MALLOC_ARENA_MAX=2$/m);
  });
});

describe('compose.yaml', () => {
  const compose = read('compose.yaml');
  it('runs the server on PostgreSQL 15 with named volumes for both', () => {
    expect(compose).toMatch(/image: postgres:15\n/);
    expect(compose).toMatch(/- db-data:\/var\/lib\/postgresql\/data/);
    expect(compose).toMatch(/- task-data:\/data/);
    expect(compose).toMatch(/\nvolumes:\n {2}db-data:\n {2}task-data:\n/);
    expect(compose).toMatch(/DATABASE_URL: postgres:\/\/tasks:\$\{POSTGRES_PASSWORD\}@db:5432\/tasks/);
    expect(compose).toMatch(/condition: service_healthy/);
  });

  it('refuses to start without the secrets instead of running an open API, and publishes on loopback only', () => {
    expect(compose).toMatch(/DASHBOARD_AUTH_TOKEN: \$\{DASHBOARD_AUTH_TOKEN:\?/);
    expect(compose).toMatch(/POSTGRES_PASSWORD: \$\{POSTGRES_PASSWORD:\?/);
    expect(compose).toContain('"127.0.0.1:3876:3876"');
    for (const name of [...compose.matchAll(/\$\{([A-Z_]+)/g)].map((m) => m[1]!)) expect(documentedVariables(), name).toContain(name);
  });
});

describe('systemd unit', () => {
  const unit = read('deploy/systemd/fleet-task-server.service');
  const value = (key: string) => [...unit.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((m) => m[1]!);
  it('runs node dist/server.js as its own user, restarts on failure and stops with SIGTERM', () => {
    expect(value('ExecStart')).toEqual(['/usr/bin/node dist/server.js']);
    expect(value('User')[0]).toMatch(/^[a-z][a-z-]+$/);
    expect(value('User')[0]).not.toBe('root');
    expect(value('KillSignal')).toEqual(['SIGTERM']);
    expect(value('Restart')).toEqual(['on-failure']);
    expect(value('EnvironmentFile')[0]).toMatch(/^-?\/etc\/fleet-task-server\/env$/);
    expect(value('Environment')).toContain('DATA_DIR=/var/lib/fleet-task-server');
    expect(value('StateDirectory')).toEqual(['fleet-task-server']);
    expect(value('WantedBy')).toEqual(['multi-user.target']);
  });
});

describe('README deploy section', () => {
  it('covers Lambda, serverless offline, containers and systemd, naming the files this repository ships', () => {
    for (const heading of ['### AWS Lambda', '### serverless offline', '### Containers', '### systemd']) expect(readme).toContain(heading);
    for (const file of ['Dockerfile', 'compose.yaml', 'deploy/systemd/fleet-task-server.service', '.env.example', 'docs/deploy-aws.md']) {
      expect(readme, file).toContain(`\`${file}\``);
      expect(() => read(file), file).not.toThrow();
    }
    expect(readme).toContain('docker compose up -d');
    expect(readme).toContain('systemctl enable --now fleet-task-server');
  });
});

describe('the Lambda environment (scripts/serverless-settings.cjs)', () => {
  it('sends no named prepared statements unless told to: RDS Proxy pins a session that prepares one', () => {
    const saved = process.env.DB_PREPARED_STATEMENTS;
    try {
      delete process.env.DB_PREPARED_STATEMENTS;
      expect(environment().DB_PREPARED_STATEMENTS).toBe('0');
      process.env.DB_PREPARED_STATEMENTS = '1';
      expect(environment().DB_PREPARED_STATEMENTS).toBe('1');
    } finally {
      if (saved === undefined) delete process.env.DB_PREPARED_STATEMENTS;
      else process.env.DB_PREPARED_STATEMENTS = saved;
    }
  });
});
