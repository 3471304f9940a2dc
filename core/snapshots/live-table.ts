import type { Db } from '../ports';
import { sqlTextArray } from '../sql-text';
import type { SnapshotTable } from './tables';

/**
 * A captured table as this database has it, read from the catalog at run time, so columns that
 * later migrations add are carried without code changes. Generated columns (audit_log had one
 * until migration 1020) are derived data: never captured, never written.
 */
export interface LiveTable {
  table: SnapshotTable;
  columns: string[];
  generated: string[];
}

export const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

export async function describeTable(db: Db, table: SnapshotTable): Promise<LiveTable> {
  const { rows } = await db.query<{ column_name: string; is_generated: string }>(
    `SELECT column_name, is_generated FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
    [table.name],
  );
  return {
    table,
    columns: rows.filter((r) => r.is_generated === 'NEVER').map((r) => r.column_name),
    generated: rows.filter((r) => r.is_generated !== 'NEVER').map((r) => r.column_name),
  };
}

/** SQL for one row of `alias` as JSON text, without generated columns (timestamps in the session's UTC). */
export function rowJsonSql(live: LiveTable, alias: string): string {
  const minus = live.generated.length ? ` - ${sqlTextArray(live.generated)}` : '';
  return `(to_jsonb(${alias})${minus})::text`;
}

export function primaryKeySql(live: LiveTable, alias: string): string {
  return live.table.primaryKey.map((c) => `${alias}.${quoteIdent(c)}`).join(', ');
}

/**
 * Every read and write of snapshot data runs with UTC timestamps, so a row serializes to the same
 * text whatever the server's or the role's TimeZone setting.
 */
export async function useUtc(tx: Db): Promise<void> {
  await tx.query(`SET LOCAL TimeZone = 'UTC'`);
}
