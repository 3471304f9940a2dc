import { exportAuditCsv } from '../../core/audit/export-audit';
import { httpHandler } from '../middleware/http-handler';
import { streamedText } from '../middleware/responses';

/** GET /api/audit.csv?q=&actor=&action=&task_id=&project_id=&entity_type=&start_date=&end_date=&governance_only=: the matching audit records as a CSV attachment, streamed a page at a time. */
export const handler = httpHandler(async (event, app) => {
  const file = await exportAuditCsv(app.deps, event.queryStringParameters);
  return streamedText(file.lines, {
    'content-type': 'text/csv; charset=utf-8',
    'content-disposition': `attachment; filename="${file.fileName}"`,
  });
});
