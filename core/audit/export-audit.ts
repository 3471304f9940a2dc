import type { Deps } from '../ports';
import { parseQuery } from '../query-params';
import { requireDb } from '../storage';
import { auditColumns, type AuditRecord } from './audit-record';
import { auditQuerySchema, auditWhere, refuseReversedRange } from './list-audit';

/** GET /api/audit.csv filters: GET /api/audit's, without its paging (the file holds every matching row). */
export const auditCsvQuerySchema = auditQuerySchema.omit({ limit: true, offset: true });

/** Rows one page of the export reads: each page is its own keyset query, so no connection is held while the client reads. */
export const AUDIT_CSV_PAGE_ROWS = 2_000;

export const auditCsvColumns = [
  'id',
  'timestamp',
  'actor',
  'action',
  'entity_type',
  'entity_id',
  'task_id',
  'project_id',
  'old_value',
  'new_value',
] as const;

/**
 * One CSV field (RFC 4180): quoted when it holds a quote, comma or line break. A text that a
 * spreadsheet would run as a formula (it opens with = + - @, a tab or a carriage return: an actor or
 * a value is whatever a client wrote) is prefixed with an apostrophe, as OWASP advises for CSV exports.
 */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = value instanceof Date ? value.toISOString() : typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const csvLine = (row: AuditRecord) => `${auditCsvColumns.map((c) => csvField(row[c])).join(',')}\r\n`;

/** Where a page ended, beside the last row's id: its timestamp as PostgreSQL prints it (microseconds kept, which a Date would lose). */
interface AuditCursor {
  cursor_at: string;
}

/**
 * GET /api/audit.csv: every audit record matching GET /api/audit's filters, newest first (the list's
 * order), as CSV text a page at a time: a header line, then one line per record with old_value and
 * new_value as JSON. Pages follow (timestamp, id) from the last row, so rows written meanwhile never
 * shift a page. The first page is read before this returns, so a bad filter or a missing database
 * is an error answer, not a cut file.
 */
export async function exportAuditCsv(
  deps: Pick<Deps, 'storage' | 'clock'>,
  query: unknown,
): Promise<{ fileName: string; lines: AsyncIterable<string> }> {
  const filter = refuseReversedRange(parseQuery(auditCsvQuerySchema, query));
  const db = requireDb(deps.storage);
  type Row = AuditRecord & AuditCursor;
  const page = async (after: Row | undefined) => {
    const { where, params } = auditWhere(filter);
    const clauses = where ? [where] : [];
    if (after) {
      params.push(after.cursor_at, after.id);
      clauses.push(`${where ? 'AND' : 'WHERE'} (timestamp, id) < ($${params.length - 1}::timestamptz, $${params.length})`);
    }
    params.push(AUDIT_CSV_PAGE_ROWS);
    const sql = `SELECT ${auditColumns}, timestamp::text AS cursor_at FROM audit_log ${clauses.join(' ')}
                  ORDER BY timestamp DESC, id DESC LIMIT $${params.length}`;
    return (await db.query<Row>(sql, params)).rows;
  };
  const first = await page(undefined);
  async function* lines(): AsyncGenerator<string> {
    yield `${auditCsvColumns.join(',')}\r\n`;
    let rows = first;
    while (rows.length) {
      const next = rows.length === AUDIT_CSV_PAGE_ROWS ? page(rows[rows.length - 1]) : undefined;
      // a reader that stops early leaves it unawaited: its failure then has nobody to tell
      next?.catch(() => undefined);
      yield rows.map(csvLine).join('');
      rows = next ? await next : [];
    }
  }
  // named for the moment of the export (UTC), e.g. audit-20330412-0800.csv
  const stamp = deps.clock.now().toISOString().slice(0, 16).replace(/[-:]/g, '').replace('T', '-');
  return { fileName: `audit-${stamp}.csv`, lines: lines() };
}
