import { getRunPage } from '../../core/workflows/run-page';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/workflow-runs/:id/page (the console's run page in one request) */
export const handler = httpHandler(async (event, app) => json(await getRunPage(app.deps, event.pathParameters?.id)));
