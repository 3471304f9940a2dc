import { getDefaultProject } from '../../core/projects/queries';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/projects/default */
export const handler = httpHandler(async (_event, app) => json(200, await getDefaultProject(app.deps)));
