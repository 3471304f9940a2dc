import { getRoute } from '../../core/workflows/routing';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/workflow-routing/:workflowType */
export const handler = httpHandler(async (event, app) => json(await getRoute(app.deps, event.pathParameters?.workflowType)));
