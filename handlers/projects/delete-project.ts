import { deleteProject } from '../../core/projects/commands';
import { httpHandler, json } from '../middleware/http-handler';

/** DELETE /api/projects/:id */
export const handler = httpHandler(async (event, app) => json(await deleteProject(app.deps, event.pathParameters?.id)));
