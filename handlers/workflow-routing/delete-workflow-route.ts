import { deleteRoute } from '../../core/workflows/routing';
import { httpHandler, json } from '../middleware/http-handler';

/** DELETE /api/workflow-routing/:workflowType */
export const handler = httpHandler(async (event, app) => json(await deleteRoute(app.deps, event.pathParameters?.workflowType, event.body)));
