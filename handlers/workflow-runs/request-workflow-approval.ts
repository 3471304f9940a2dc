import { requestApproval } from '../../core/workflows/approvals';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/workflow-runs/:id/approvals */
export const handler = httpHandler(async (event, app) => json(await requestApproval(app.deps, event.pathParameters?.id, event.body)));
