import { createProject } from '../../core/projects/commands';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/projects */
export const handler = httpHandler(async (event, app) => json(await createProject(app.deps, event.body)));
