import { listAudit } from '../../core/audit/list-audit';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/audit?q=&actor=&action=&task_id=&project_id=&entity_type=&start_date=&end_date=&governance_only=&limit=&offset= */
export const handler = httpHandler(async (event, app) => json(200, await listAudit(app.deps, event.queryStringParameters)));
