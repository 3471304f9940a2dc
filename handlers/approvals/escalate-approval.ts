import { escalateApproval } from '../../core/workflows/approvals';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/approvals/:id/escalate */
export const handler = httpHandler(async (event, app) => json(await escalateApproval(app.deps, event.pathParameters?.id, event.body)));
