import { getProject } from '../../core/projects/queries';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/projects/:id */
export const handler = httpHandler(async (event, app) => json(await getProject(app.deps, event.pathParameters?.id)));
