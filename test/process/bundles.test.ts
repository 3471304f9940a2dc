import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** The Lambda bundles as `npm run build` leaves them (test/support/build-setup.ts builds once per run). */
const lambdaDir = path.resolve('dist/lambda');
const bundles = () => readdirSync(lambdaDir).filter((f) => f.endsWith('.mjs'));

describe('Lambda bundles', () => {
  // 350 KB until agent tokens and webhooks: every handler now carries the agent access table and the webhook transport (~10 KB).
  // 365 KB until migration 0990: every bundle carries every migration's SQL (a Lambda migrates at its cold
  // start, ~47 KB in all), and the median stood 0.5 KB under. 370 KB until migrations 1000 and 1010 (the
  // claims' functions, ~5 KB of SQL; the median went from 368.2 to 373.0 KB). 375 KB until migrations 1020
  // and 1030 (the deferred audit search and run_state_json's columns, ~5 KB of SQL; 373.4 to 378.6 KB). 380 KB
  // until migration 1040 and the repairs of migrations edited after landing (~3.5 KB; 378.6 to 382.2 KB). 385 KB
  // until migrations 1050 to 1070 (the task JSON text kept in the row, ~7 KB of SQL; 382.2 to 389.5 KB). 390 KB
  // until the embedded PostgreSQL's watch, which starts it again when it goes away (every bundle carries the
  // embedded lifecycle: serverless offline runs these bundles on it; 389.5 to 390.1 KB). 395 KB until the
  // released runtime's gateway reader, the runtime costs pass with migration 1110's queue, the session
  // tail and the board's stuck reasons (every bundle builds the same Deps and migrates; 394.1 to 407.5 KB).
  // 410 KB until the migrations became plain .sql files: migration 0960's SQL, which TypeScript helpers
  // wrote out at run time, is now carried as the text it ran (~16.5 KB where the helpers took ~7 KB;
  // 407.5 to 416.8 KB). 420 KB until the console's part 2: the core of its one-request routes (runs view,
  // run page, roster, settings overview, burn-downs, session search, audit CSV, restore status) and
  // migrations 1120 and 1170, carried by every bundle through the shared Deps and route table (416.8 to 420.7 KB).
  // The levers for a real cut: zod (~105 KB of each bundle; zod/mini would be a fraction of it) and the
  // migrations' SQL (~92 KB in every bundle, where only the function that migrates needs it).
  it('are under 425 KB at the median (zod tree-shaken, the AWS SDK left to the runtime)', () => {
    const sizes = bundles()
      .map((f) => statSync(path.join(lambdaDir, f)).size)
      .sort((a, b) => a - b);
    expect(sizes.length).toBeGreaterThan(30);
    const mid = sizes.length >> 1;
    const median = sizes.length % 2 ? sizes[mid]! : (sizes[mid - 1]! + sizes[mid]!) / 2;
    expect(median).toBeLessThan(425 * 1024);
    // the AWS SDK is the runtime's, loaded only by the code that needs it (S3 store, SSM secrets)
    for (const file of bundles()) {
      const text = readFileSync(path.join(lambdaDir, file), 'utf8');
      expect(text, file).not.toMatch(/(?:import|from)\s*"@aws-sdk\/[^"]+"\s*;/);
      expect(text, file).not.toContain('class S3Client');
    }
    expect(readFileSync(path.join(lambdaDir, 'snapshots.mjs'), 'utf8')).toContain('import("@aws-sdk/client-s3")');
  });

  it('keep their source maps outside the folder the zips are made from, and do not point at them', () => {
    expect(readdirSync(lambdaDir).filter((f) => f.endsWith('.map'))).toEqual([]);
    for (const file of bundles()) {
      expect(statSync(path.resolve('dist/sourcemaps/lambda', `${file}.map`)).size, file).toBeGreaterThan(0);
      expect(readFileSync(path.join(lambdaDir, file), 'utf8'), file).not.toContain('sourceMappingURL');
    }
  });

  it('keep class names, so error names in logs are readable', () => {
    const text = readFileSync(path.join(lambdaDir, 'snapshots.mjs'), 'utf8');
    expect(text).toContain('"SnapshotNotFoundError"');
    expect(text).toContain('"ValidationError"');
  });
});
