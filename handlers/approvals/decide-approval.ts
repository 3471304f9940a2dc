import { decideApproval } from '../../core/workflows/approvals';
import { httpHandler, json } from '../middleware/http-handler';

/** PATCH /api/approvals/:id */
export const handler = httpHandler(async (event, app) => json(await decideApproval(app.deps, event.pathParameters?.id, event.body)));
