import { decideApproval } from '../../core/workflows/approvals';
import { httpHandler, json } from '../middleware/http-handler';

/** PATCH /api/approvals/:id */
export const handler = httpHandler(async (event, app) => json(200, await decideApproval(app.deps, event.pathParameters?.id, event.body)));
