import type { Db } from './ports';

const COLUMN = /^[a-z_][a-z0-9_]*$/;

export interface RowPatch {
  table: string;
  /** The key column (default id), matched against `key`. */
  keyColumn?: string;
  key: unknown;
  /** Column -> new value; the names come from a validated schema, never from a request's keys unchecked. */
  set: Record<string, unknown>;
  /** Stamped into updated_at. */
  at: Date;
  /** The RETURNING list. */
  returning: string;
}

/**
 * The one PATCH statement: `UPDATE table SET col = $n…, updated_at = $m WHERE key = $1 RETURNING …`,
 * every value a parameter. Answers the row after the change, or undefined when no row has the key.
 */
export async function patchRow<Row>(tx: Db, patch: RowPatch): Promise<Row | undefined> {
  const columns = Object.keys(patch.set);
  const unsafe = [patch.table, patch.keyColumn ?? 'id', ...columns].find((c) => !COLUMN.test(c));
  if (unsafe !== undefined) throw new Error(`patchRow: ${JSON.stringify(unsafe)} is not a column name`);
  const assignments = [...columns.map((c, i) => `${c} = $${i + 2}`), `updated_at = $${columns.length + 2}`];
  const { rows } = await tx.query<Row>(
    `UPDATE ${patch.table} SET ${assignments.join(', ')} WHERE ${patch.keyColumn ?? 'id'} = $1 RETURNING ${patch.returning}`,
    [patch.key, ...columns.map((c) => patch.set[c]), patch.at],
  );
  return rows[0];
}
