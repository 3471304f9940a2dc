import { createTemplate } from '../../core/workflows/templates';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/workflow-templates */
export const handler = httpHandler(async (event, app) => json(await createTemplate(app.deps, event.body)));
