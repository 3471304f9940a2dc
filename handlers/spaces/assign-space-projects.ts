import { assignProjects } from '../../core/spaces/commands';
import { httpHandler, json } from '../middleware/http-handler';

/** PUT /api/spaces/:id/projects {project_ids} */
export const handler = httpHandler(async (event, app) => json(await assignProjects(app.deps, event.pathParameters?.id, event.body)));
