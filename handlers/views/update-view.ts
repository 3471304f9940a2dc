import { updateView } from '../../core/views/saved-views';
import { httpHandler, json } from '../middleware/http-handler';

/** PATCH /api/views/:id */
export const handler = httpHandler(async (event, app) => json(await updateView(app.deps, event.pathParameters?.id, event.body)));
