import type { Db } from '../ports';
import { quoteIdent } from '../snapshots/live-table';
import type { SnapshotTable } from '../snapshots/tables';
import { tableRows, type ArtifactLayout } from './artifact';

export interface UniqueClash {
  table: string;
  key: string;
  /** Artifact rows whose unique value a live row with another primary key holds. */
  rows: number;
  /** A few of those artifact rows' primary keys. */
  sample: string[];
}

const SAMPLE = 5;

const over = (sql: string, alias: string) => sql.replaceAll('$t', alias);

/**
 * The unique keys (besides the primary key) on which a merge would fail: an artifact row and a
 * live row with another primary key hold the same value, and the live row is not itself in the
 * artifact (a merge leaves it as it is). Replace mode deletes such live rows first, so only merge
 * needs this. Reads the artifact's rows of the tables that have unique keys, a batch at a time.
 */
export async function findUniqueClashes(
  db: Db,
  layout: ArtifactLayout,
  tables: readonly SnapshotTable[],
  batchSize: number,
): Promise<UniqueClash[]> {
  const clashes: UniqueClash[] = [];
  for (const table of tables) {
    if (!table.uniqueKeys?.length || !layout.tables.has(table.name)) continue;
    // every table with unique keys has a one-column primary key (checked by the table list's test)
    const pk = quoteIdent(table.primaryKey[0]!);
    const name = quoteIdent(table.name);
    for (const unique of table.uniqueKeys) {
      // candidate pairs first; usually none, so the artifact is read a second time only when needed
      const pairs: Array<{ artifact: string; live: string }> = [];
      for await (const batch of tableRows(layout, table.name, batchSize)) {
        const { rows } = await db.query<{ artifact: string; live: string }>(
          `SELECT a.${pk}::text AS artifact, l.${pk}::text AS live
             FROM jsonb_populate_recordset(NULL::${name}, $1::jsonb) a
             JOIN ${name} l ON (${over(unique.key, 'l')}) = (${over(unique.key, 'a')})
                            ${unique.where ? `AND ${over(unique.where, 'l')} AND ${over(unique.where, 'a')}` : ''}
            WHERE l.${pk} <> a.${pk}`,
          [JSON.stringify(batch)],
        );
        pairs.push(...rows);
      }
      if (!pairs.length) continue;
      const liveInArtifact = new Set<string>();
      const wanted = new Set(pairs.map((p) => p.live));
      for await (const batch of tableRows(layout, table.name, batchSize)) {
        for (const row of batch) {
          const id = String(row[table.primaryKey[0]!]);
          if (wanted.has(id)) liveInArtifact.add(id);
        }
      }
      const blocking = [...new Set(pairs.filter((p) => !liveInArtifact.has(p.live)).map((p) => p.artifact))].sort();
      if (blocking.length) clashes.push({ table: table.name, key: unique.name, rows: blocking.length, sample: blocking.slice(0, SAMPLE) });
    }
  }
  return clashes;
}

export function describeClashes(clashes: readonly UniqueClash[]): string {
  return clashes.map((c) => `${c.rows} row(s) of ${c.table} (${c.key}, e.g. ${c.sample.join(', ')})`).join('; ');
}
