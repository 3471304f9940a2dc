import { getTemplate } from '../../core/workflows/templates';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/workflow-templates/:name */
export const handler = httpHandler(async (event, app) => json(await getTemplate(app.deps, event.pathParameters?.name)));
