import { getSpaceStats } from '../../core/spaces/queries';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/spaces/:id/stats */
export const handler = httpHandler(async (event, app) => json(200, await getSpaceStats(app.deps, event.pathParameters?.id)));
