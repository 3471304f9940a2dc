import { updateProject } from '../../core/projects/commands';
import { httpHandler, json } from '../middleware/http-handler';

/** PATCH /api/projects/:id */
export const handler = httpHandler(async (event, app) => json(await updateProject(app.deps, event.pathParameters?.id, event.body)));
