import type { Db } from '../ports';
import { isSecretKey, REDACTED, redactSecrets } from '../secrets/redact';
import { canonicalJson, sha256Hex } from '../snapshots/canonical-json';
import { primaryKeySql, quoteIdent, rowJsonSql, type LiveTable } from '../snapshots/live-table';
import { primaryKeyOf, primaryKeyText } from '../snapshots/tables';

/**
 * Spec 02 diff classification, one batch of artifact rows at a time, keyed by primary key:
 * added (key absent live), unchanged (same canonical row hash), conflict (hash differs and the
 * live row's updated_at is after the artifact's created_at), updated (hash differs otherwise).
 * Both sides are hashed redacted and over the columns both know, so a secret the artifact could
 * not carry, or a column a later migration added, does not make a row look changed.
 */
export type RowClass = 'added' | 'updated' | 'conflict' | 'unchanged';

export interface ClassifiedRow {
  kind: RowClass;
  row: Record<string, unknown>;
  live?: Record<string, unknown>;
}

type Row = Record<string, unknown>;

function comparable(row: Row, keys: readonly string[]): string {
  const picked: Row = {};
  for (const k of keys) picked[k] = row[k] ?? null;
  return sha256Hex(canonicalJson(redactSecrets(picked)));
}

/** The primary-key columns of rows, as the JSON array jsonb_populate_recordset reads. */
function keysJson(live: LiveTable, rows: readonly Row[]): string {
  return JSON.stringify(rows.map((r) => Object.fromEntries(live.table.primaryKey.map((c) => [c, r[c]]))));
}

export async function classifyBatch(db: Db, live: LiveTable, rows: readonly Row[], createdAt: string): Promise<ClassifiedRow[]> {
  const name = quoteIdent(live.table.name);
  const { rows: found } = await db.query<{ row: string; changed_after: boolean }>(
    `SELECT ${rowJsonSql(live, 't')} AS row, t.updated_at > $2::timestamptz AS changed_after
       FROM ${name} t
      WHERE (${primaryKeySql(live, 't')}) IN (SELECT ${primaryKeySql(live, 'k')} FROM jsonb_populate_recordset(NULL::${name}, $1::jsonb) k)`,
    [keysJson(live, rows), createdAt],
  );
  const byKey = new Map<string, { row: Row; changedAfter: boolean }>();
  for (const f of found) {
    const row = JSON.parse(f.row) as Row;
    byKey.set(primaryKeyText(live.table, row), { row, changedAfter: f.changed_after });
  }
  const known = new Set(live.columns);
  return rows.map((row) => {
    const match = byKey.get(primaryKeyText(live.table, row));
    if (!match) return { kind: 'added', row };
    const keys = Object.keys(row).filter((k) => known.has(k));
    if (comparable(row, keys) === comparable(match.row, keys)) return { kind: 'unchanged', row, live: match.row };
    return { kind: match.changedAfter ? 'conflict' : 'updated', row, live: match.row };
  });
}

export const pkOf = (live: LiveTable, row: Row) => primaryKeyOf(live.table, row);

/**
 * Where the artifact holds "[REDACTED]" under a secret key and the live row still has that key,
 * the live value is kept: restoring must not overwrite a secret with its redaction marker.
 */
export function keepLiveSecrets(restored: unknown, live: unknown): unknown {
  if (Array.isArray(restored)) {
    return restored.map((item, i) => keepLiveSecrets(item, Array.isArray(live) ? live[i] : undefined));
  }
  if (restored === null || typeof restored !== 'object') return restored;
  const liveObject = live !== null && typeof live === 'object' && !Array.isArray(live) ? (live as Row) : undefined;
  const out: Row = {};
  for (const [key, value] of Object.entries(restored as Row)) {
    if (value === REDACTED && isSecretKey(key) && liveObject && key in liveObject) out[key] = liveObject[key];
    else out[key] = keepLiveSecrets(value, liveObject?.[key]);
  }
  return out;
}

/** Inserts or updates rows by primary key, writing the columns the rows carry (others keep their defaults). */
export async function upsertRows(db: Db, live: LiveTable, rows: readonly Row[]): Promise<number> {
  if (!rows.length) return 0;
  const carried = new Set(rows.flatMap((r) => Object.keys(r)));
  const columns = live.columns.filter((c) => carried.has(c));
  const name = quoteIdent(live.table.name);
  const list = columns.map(quoteIdent).join(', ');
  const updates = columns.filter((c) => !live.table.primaryKey.includes(c)).map((c) => `${quoteIdent(c)} = EXCLUDED.${quoteIdent(c)}`);
  const conflict = updates.length ? `DO UPDATE SET ${updates.join(', ')}` : 'DO NOTHING';
  const { rowCount } = await db.query(
    `INSERT INTO ${name} (${list}) SELECT ${list} FROM jsonb_populate_recordset(NULL::${name}, $1::jsonb)
     ON CONFLICT (${live.table.primaryKey.map(quoteIdent).join(', ')}) ${conflict}`,
    [JSON.stringify(rows)],
  );
  return rowCount;
}

/** Keeps serial primary keys (audit_log, budget_events) ahead of the restored ids. */
export async function advanceSequences(db: Db, live: LiveTable): Promise<void> {
  for (const column of live.table.primaryKey) {
    const { rows } = await db.query<{ seq: string | null }>('SELECT pg_get_serial_sequence($1, $2) AS seq', [live.table.name, column]);
    const seq = rows[0]?.seq;
    if (!seq) continue;
    await db.query(
      `SELECT setval($1::regclass, GREATEST(coalesce((SELECT max(${quoteIdent(column)}) FROM ${quoteIdent(live.table.name)}), 1), nextval($1::regclass)))`,
      [seq],
    );
  }
}

/** Replace mode: collects the artifact's keys of a table in a temporary table, then deletes live rows not among them. */
export class KeySet {
  private created = false;
  constructor(
    private readonly db: Db,
    private readonly live: LiveTable,
  ) {}

  private get keyColumns() {
    return this.live.table.primaryKey.map(quoteIdent).join(', ');
  }

  async add(rows: readonly Row[]): Promise<void> {
    const name = quoteIdent(this.live.table.name);
    if (!this.created) {
      await this.db.query(`CREATE TEMP TABLE restore_keys ON COMMIT DROP AS SELECT ${this.keyColumns} FROM ${name} WITH NO DATA`);
      this.created = true;
    }
    if (rows.length) {
      await this.db.query(`INSERT INTO restore_keys SELECT ${this.keyColumns} FROM jsonb_populate_recordset(NULL::${name}, $1::jsonb)`, [
        keysJson(this.live, rows),
      ]);
    }
  }

  async deleteOthers(): Promise<number> {
    await this.add([]);
    await this.db.query(`ALTER TABLE restore_keys ADD PRIMARY KEY (${this.keyColumns})`);
    await this.db.query('ANALYZE restore_keys');
    const match = this.live.table.primaryKey.map((c) => `k.${quoteIdent(c)} = t.${quoteIdent(c)}`).join(' AND ');
    const { rowCount } = await this.db.query(
      `DELETE FROM ${quoteIdent(this.live.table.name)} t WHERE NOT EXISTS (SELECT 1 FROM restore_keys k WHERE ${match})`,
    );
    return rowCount;
  }
}
