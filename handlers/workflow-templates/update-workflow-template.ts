import { updateTemplate } from '../../core/workflows/templates';
import { httpHandler, json } from '../middleware/http-handler';

/** PATCH /api/workflow-templates/:name */
export const handler = httpHandler(async (event, app) => json(await updateTemplate(app.deps, event.pathParameters?.name, event.body)));
