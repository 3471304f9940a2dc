import { listAudit } from '../../core/audit/list-audit';
import { httpHandler, json } from '../middleware/http-handler';

/**
 * GET /api/audit?q=&actor=&action=&task_id=&project_id=&entity_type=&start_date=&end_date=&governance_only=&limit=&offset=
 * A `q` search that had to leave rows waiting for the index out says how many in X-Audit-Search-Unsearched.
 */
export const handler = httpHandler(async (event, app) => {
  const page = await listAudit(app.deps, event.queryStringParameters);
  const answer = json(page.records);
  if (page.unsearched) answer.headers['x-audit-search-unsearched'] = String(page.unsearched);
  return answer;
});
