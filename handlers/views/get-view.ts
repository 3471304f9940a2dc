import { getView } from '../../core/views/saved-views';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/views/:id */
export const handler = httpHandler(async (event, app) => json(await getView(app.deps, event.pathParameters?.id)));
