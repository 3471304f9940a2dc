import { getSpaceStats } from '../../core/spaces/queries';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/spaces/:id/stats */
export const handler = httpHandler(async (event, app) => json(await getSpaceStats(app.deps, event.pathParameters?.id)));
