import { updateSpace } from '../../core/spaces/commands';
import { httpHandler, json } from '../middleware/http-handler';

/** PUT /api/spaces/:id */
export const handler = httpHandler(async (event, app) => json(await updateSpace(app.deps, event.pathParameters?.id, event.body)));
