import { listApprovals } from '../../core/workflows/approvals';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/approvals?status=&workflow_run_id=&limit= */
export const handler = httpHandler(async (event, app) => json(await listApprovals(app.deps, event.queryStringParameters)));
