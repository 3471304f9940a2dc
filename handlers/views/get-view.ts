import { getView } from '../../core/views/saved-views';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/views/:id */
export const handler = httpHandler(async (event, app) => json(200, await getView(app.deps, event.pathParameters?.id)));
