import { listProjects } from '../../core/projects/queries';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/projects?status=&workspace_id= */
export const handler = httpHandler(async (event, app) => json(await listProjects(app.deps, event.queryStringParameters)));
