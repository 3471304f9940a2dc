import { putRoute } from '../../core/workflows/routing';
import { httpHandler, json } from '../middleware/http-handler';

/** PUT /api/workflow-routing/:workflowType */
export const handler = httpHandler(async (event, app) => json(await putRoute(app.deps, event.pathParameters?.workflowType, event.body)));
