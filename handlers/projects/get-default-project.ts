import { getDefaultProject } from '../../core/projects/queries';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/projects/default */
export const handler = httpHandler(async (_event, app) => json(await getDefaultProject(app.deps)));
