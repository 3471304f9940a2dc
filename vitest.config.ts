import { defineConfig } from 'vitest/config';

/**
 * Three projects:
 * - unit: core and pure infra pieces, no database;
 * - embedded: handler and HTTP tests on an embedded PostgreSQL started for the run;
 * - postgres: the same files on the PostgreSQL of TEST_DATABASE_URL, when it is set;
 * - process: built artifacts as child processes (dist/server.js, serverless offline), once, and the
 *   console in a real Chromium against dist/server.js (test/browser/).
 * Each database test file gets its own database, created from a migrated template.
 */
const databaseTests = ['test/handlers/**/*.test.ts', 'test/http/**/*.test.ts'];
const external = process.env.TEST_DATABASE_URL;

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    maxWorkers: 4,
    projects: [
      { extends: true as const, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      {
        extends: true as const,
        test: { name: 'embedded', include: databaseTests, globalSetup: ['test/support/embedded-database-setup.ts'] },
      },
      ...(external
        ? [
            {
              extends: true as const,
              test: { name: 'postgres', include: databaseTests, globalSetup: ['test/support/external-database-setup.ts'] },
            },
          ]
        : []),
      {
        extends: true as const,
        test: {
          name: 'process',
          include: ['test/process/**/*.test.ts', 'test/browser/**/*.test.ts'],
          globalSetup: ['test/support/build-setup.ts', 'test/support/embedded-database-setup.ts', 'test/support/chromium-setup.ts'],
          testTimeout: 90_000,
          // the browser tests wait on what the page shows; a loaded machine may take a few seconds
          expect: { poll: { timeout: 15_000 } },
        },
      },
    ],
  },
});
