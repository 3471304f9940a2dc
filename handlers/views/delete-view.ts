import { deleteView } from '../../core/views/saved-views';
import { httpHandler, json } from '../middleware/http-handler';

/** DELETE /api/views/:id */
export const handler = httpHandler(async (event, app) => json(await deleteView(app.deps, event.pathParameters?.id)));
