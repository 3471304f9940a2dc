import { getRunDetail } from '../../core/workflows/run-queries';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/workflow-runs/:id (run detail) */
export const handler = httpHandler(async (event, app) => json(await getRunDetail(app.deps, event.pathParameters?.id)));
