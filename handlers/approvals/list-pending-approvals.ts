import { listPendingApprovals } from '../../core/workflows/approvals';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/approvals/pending?approver_id=&limit= */
export const handler = httpHandler(async (event, app) => json(await listPendingApprovals(app.deps, event.queryStringParameters)));
