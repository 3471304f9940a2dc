import type { operations } from '../../mcp/task-server-paths';
import { api, expectData, problemOf } from './api';

/** The Audit screen's reads, each one route of the API. */
export type AuditRecord = operations['auditListAudit']['responses'][200]['content']['application/json'][number];

/** The search as the URL keeps it (empty fields left out). */
export interface AuditFilter {
  q?: string;
  actor?: string;
  action?: string;
  entity_type?: string;
  start_date?: string;
  end_date?: string;
}

/** Rows one request reads; the list asks for the next page as its end scrolls into view. */
export const AUDIT_PAGE_ROWS = 100;

export interface AuditPage {
  records: AuditRecord[];
  /** Rows a text search could not look at yet (X-Audit-Search-Unsearched), else undefined. */
  unsearched: string | undefined;
}

export async function loadAuditPage(filter: AuditFilter, offset: number): Promise<AuditPage> {
  let unsearched: string | undefined;
  const records = await expectData(
    api()
      .GET('/api/audit', { params: { query: { ...filter, limit: String(AUDIT_PAGE_ROWS), offset: String(offset) } } })
      .then((result) => {
        unsearched = result.response.headers.get('x-audit-search-unsearched') ?? undefined;
        return result;
      }),
  );
  return { records, unsearched };
}

/** GET /api/audit.csv for the same filter, as a file and its name (the token travels in the header, so a plain link cannot fetch it). */
export async function downloadAuditCsv(filter: AuditFilter): Promise<{ blob: Blob; fileName: string }> {
  const result = await api().GET('/api/audit.csv', { params: { query: filter }, parseAs: 'blob' });
  if (!result.response.ok || !result.data) throw new Error(problemOf(result.error, result.response));
  return { blob: result.data as Blob, fileName: fileNameOf(result.response) ?? 'audit.csv' };
}

/** The file name a Content-Disposition header gives, if any. */
export function fileNameOf(response: Response): string | undefined {
  return /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1];
}
