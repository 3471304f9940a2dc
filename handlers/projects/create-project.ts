import { createProject } from '../../core/projects/commands';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/projects */
export const handler = httpHandler(async (event, app) => json(201, await createProject(app.deps, event.body)));
