import { beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_CSV_PAGE_ROWS, csvField } from '../../core/audit/export-audit';
import { useTestApp } from '../support/use-app';

/** GET /api/audit.csv: GET /api/audit's filters, every matching row (no paging), as CSV streamed a page at a time. */
const app = useTestApp();

/** Splits CSV text into records of fields (RFC 4180: quoted fields may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') ((field += '"'), i++);
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') (record.push(field), (field = ''));
    else if (c === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      ((record = []), (field = ''), i++);
    } else field += c;
  }
  expect(field, 'the file ends with a line break').toBe('');
  return records;
}

const BULK = AUDIT_CSV_PAGE_ROWS + 501;

beforeAll(async () => {
  await app.db.query(
    `INSERT INTO audit_log (timestamp, actor, action, entity_type, entity_id, old_value, new_value) VALUES
       ('2034-02-01T10:00:00Z', 'ana', 'updated', 'task', 't-1', '{"title":"before"}', '{"title":"say \\"hi\\", then\\nleave"}'),
       ('2034-02-02T10:00:00Z', '=HYPERLINK("x")', 'created', 'project', 'p-1', NULL, '{"name":"formula actor"}'),
       ('2034-02-03T10:00:00Z', 'ana', 'deleted', 'task', 't-2', NULL, NULL)`,
  );
  // many rows at one instant and ids interleaved: the pages follow (timestamp, id), neither repeating nor skipping one
  await app.db.query(
    `INSERT INTO audit_log (timestamp, actor, action, entity_type, entity_id, new_value)
     SELECT '2034-03-01T00:00:00Z'::timestamptz + (g % 7) * interval '1 microsecond', 'bulk-bot', 'updated', 'task', g::text, jsonb_build_object('n', g)
       FROM generate_series(1, ${BULK}) g`,
  );
  // indexed for q as a dispatcher pass leaves them (a search reads only the newest pending rows)
  await app.db.query('SELECT audit_search_fold(100000)');
});

describe('GET /api/audit.csv', () => {
  it('answers a header and one line per matching record, newest first, values as JSON, quoted where they must be', async () => {
    const res = await app.call('GET', '/api/audit.csv?actor=ana');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="audit-\d{8}-\d{4}\.csv"$/);
    const [header, ...rows] = parseCsv(res.text);
    expect(header).toEqual([
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
    ]);
    expect(rows.map((r) => [r[1], r[2], r[3], r[5]])).toEqual([
      ['2034-02-03T10:00:00.000Z', 'ana', 'deleted', 't-2'],
      ['2034-02-01T10:00:00.000Z', 'ana', 'updated', 't-1'],
    ]);
    expect(rows[0]!.slice(6)).toEqual(['', '', '', '']);
    expect(JSON.parse(rows[1]![9]!)).toEqual({ title: 'say "hi", then\nleave' });
    expect(JSON.parse(rows[1]![8]!)).toEqual({ title: 'before' });
  });

  it('takes the list’s filters: text, entity type and a date range', async () => {
    const lines = async (query: string) => parseCsv((await app.call('GET', `/api/audit.csv?${query}`)).text).slice(1);
    expect((await lines('q=formula')).map((r) => r[4])).toEqual(['project']);
    expect((await lines('entity_type=project')).map((r) => r[5])).toEqual(['p-1']);
    expect((await lines('start_date=2034-02-02&end_date=2034-02-03')).map((r) => r[5])).toEqual(['t-2', 'p-1']);
  });

  it('defuses a text a spreadsheet would run as a formula', async () => {
    const [, row] = parseCsv((await app.call('GET', '/api/audit.csv?entity_type=project')).text);
    expect(row![2]).toBe(`'=HYPERLINK("x")`);
    expect(csvField('-1')).toBe(`'-1`);
    expect(csvField('@sum')).toBe(`'@sum`);
    expect(csvField('plain')).toBe('plain');
    expect(csvField(null)).toBe('');
  });

  it('holds every matching row across its pages, each once, in the list’s order (streamed through the runner)', async () => {
    const res = await app.http('GET', '/api/audit.csv?actor=bulk-bot');
    expect(res.status).toBe(200);
    const rows = parseCsv(res.text).slice(1);
    expect(rows).toHaveLength(BULK);
    expect(new Set(rows.map((r) => r[5])).size).toBe(BULK);
    const listed = await app.call('GET', '/api/audit?actor=bulk-bot&limit=500');
    expect(rows.slice(0, 500).map((r) => Number(r[0]))).toEqual(listed.body.map((r: { id: number }) => r.id));
  });

  it('refuses bad filters with 400 naming them, and ignores the list’s paging', async () => {
    for (const [query, message] of [
      ['start_date=2034-05-01&end_date=2034-04-01', /start_date/],
      ['end_date=yesterday', /end_date/],
      ['governance_only=maybe', /governance_only/],
    ] as const) {
      const res = await app.call('GET', `/api/audit.csv?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error).toMatch(message);
    }
    const paged = await app.call('GET', '/api/audit.csv?actor=ana&limit=1&offset=1');
    expect(
      paged.headers['x-ignored-params']
        ?.split(',')
        .map((k: string) => k.trim())
        .sort(),
    ).toEqual(['limit', 'offset']);
    expect(parseCsv(paged.text)).toHaveLength(3);
  });
});
