import type { Db } from '../../core/ports';
import { migrations } from './migrations/index';
import { landedEdits } from './migrations/landed-edits';

/** Any fixed number: every process that migrates the same database serializes on it. */
const MIGRATION_LOCK = 7_461_203;

/**
 * Applies the migrations this build knows and the database lacks, each in its own transaction,
 * under an advisory lock so that concurrent starters (workers, test files) never race. First, a
 * database migrated by an earlier text of a migration that changed after it landed is brought to
 * what today's text leaves (migrations/landed-edits.ts): the pending ones may rely on it.
 */
export interface MigrationReport {
  /** The migrations applied now, in the order they ran. */
  applied: string[];
  /** The migrations whose earlier text's result was repaired now (landed-edits.ts). */
  repaired: string[];
}

export async function migrate(db: Db): Promise<MigrationReport> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await tx.query<{ name: string }>('SELECT name FROM schema_migrations');
    const applied = new Set(rows.map((r) => r.name));
    const repaired: string[] = [];
    for (const edit of landedEdits) {
      if (!applied.has(edit.migration)) continue;
      const { rows: check } = await tx.query<{ needed: boolean }>(edit.needed);
      if (!check[0]?.needed) continue;
      await tx.query(edit.sql);
      repaired.push(edit.migration);
    }
    const newlyApplied: string[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.name)) continue;
      await tx.transaction(async (step) => {
        await step.query(migration.sql);
        await step.query('INSERT INTO schema_migrations (name) VALUES ($1)', [migration.name]);
      });
      newlyApplied.push(migration.name);
    }
    return { applied: newlyApplied, repaired };
  });
}

/**
 * Names of the migrations applied to a database in the order they ran: this build's array order
 * (names do not sort that way), then any names this build does not know (a newer build migrated
 * the database), by name.
 */
export async function appliedMigrations(db: Db): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    'SELECT name FROM schema_migrations ORDER BY array_position($1::text[], name) NULLS LAST, name',
    [migrations.map((m) => m.name)],
  );
  return rows.map((r) => r.name);
}
