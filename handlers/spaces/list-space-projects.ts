import { listSpaceProjects } from '../../core/spaces/queries';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/spaces/:id/projects */
export const handler = httpHandler(async (event, app) => json(await listSpaceProjects(app.deps, event.pathParameters?.id)));
