import { listTemplates } from '../../core/workflows/templates';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/workflow-templates?department_id=&ui_category= */
export const handler = httpHandler(async (event, app) => json(await listTemplates(app.deps, event.queryStringParameters)));
