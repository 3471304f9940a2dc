// Writes infra/db/migrations/index.ts from the .sql files beside it (infra/db/migrations/README.md).
//   node scripts/migrations-module.mjs           write it when it differs (`npm run db:migrations`)
//   node scripts/migrations-module.mjs --check   exit 1 when it differs
// The build (esbuild.config.mjs) and `npm run typecheck` write it too; test/unit/migrations.test.ts
// fails when the committed module and the folder disagree. A module rather than .sql imports, so the
// SQL reaches every bundle, tsx, vitest and tsc with no loader of its own.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const migrationsDirectory = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'infra', 'db', 'migrations');
export const migrationsModuleFile = path.join(migrationsDirectory, 'index.ts');

/** `NNN-<name>.sql`: NNN its place in the order they apply (001, 002, …), <name> what schema_migrations records. */
const FILE_NAME = /^(\d{3})-(\d{4}_[a-z0-9_]+)\.sql$/;

/**
 * A migration file's SQL: everything after the `--` lines it starts with. Those lines are its header,
 * which may still change after the migration lands; the SQL may not (its hash is pinned).
 */
export function migrationSql(text) {
  const lines = text.split('\n');
  let header = 0;
  while (header < lines.length && lines[header].startsWith('--')) header++;
  return lines.slice(header).join('\n');
}

/** The migrations of the folder in the order they apply, checked to be numbered 001, 002, … without a gap. */
export function migrationFiles(directory = migrationsDirectory) {
  const files = readdirSync(directory)
    .filter((f) => f.endsWith('.sql'))
    .sort();
  return files.map((file, i) => {
    const match = FILE_NAME.exec(file);
    if (!match) throw new Error(`infra/db/migrations/${file}: a migration file is named NNN-NNNN_words.sql (see README.md)`);
    const place = String(i + 1).padStart(3, '0');
    if (match[1] !== place)
      throw new Error(
        `infra/db/migrations/${file}: expected the number ${place} here (files are numbered 001, 002, … in the order they apply, without a gap or a repeat)`,
      );
    return { file, name: match[2], sql: migrationSql(readFileSync(path.join(directory, file), 'utf8')) };
  });
}

/** The source of infra/db/migrations/index.ts, as the folder's .sql files make it today. */
export function migrationsModuleSource(directory = migrationsDirectory) {
  // one line per migration: the SQL is read in its .sql file, this module only carries it
  const entries = migrationFiles(directory).map(
    ({ file, name, sql }) => `  // ${file}\n  { name: ${JSON.stringify(name)}, sql: ${JSON.stringify(sql)} },`,
  );
  return `// Generated from the .sql files beside it by scripts/migrations-module.mjs (\`npm run db:migrations\`;
// the build and \`npm run typecheck\` run it too). Do not edit: edit or add a .sql file, where the SQL reads.

/**
 * THE order of the migrations, which is the order of their file names: applied in this order, each
 * once, recorded by name in schema_migrations (snapshot manifests list these names and restore
 * compares them). See README.md.
 */
export const migrations: ReadonlyArray<{ name: string; sql: string }> = [
${entries.join('\n')}
];
`;
}

/** Writes infra/db/migrations/index.ts when it differs from what the folder makes; answers whether it did. */
export function writeMigrationsModule() {
  const source = migrationsModuleSource();
  let current = '';
  try {
    current = readFileSync(migrationsModuleFile, 'utf8');
  } catch {
    // not written yet
  }
  if (current === source) return false;
  writeFileSync(migrationsModuleFile, source);
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--check')) {
    if (readFileSync(migrationsModuleFile, 'utf8') !== migrationsModuleSource()) {
      console.error('infra/db/migrations/index.ts differs from the .sql files beside it: run `npm run db:migrations`');
      process.exit(1);
    }
  } else if (writeMigrationsModule()) {
    console.log('wrote infra/db/migrations/index.ts');
  }
}
