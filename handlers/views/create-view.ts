import { createView } from '../../core/views/saved-views';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/views */
export const handler = httpHandler(async (event, app) => json(await createView(app.deps, event.body)));
