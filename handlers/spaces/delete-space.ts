import { deleteSpace } from '../../core/spaces/commands';
import { httpHandler, json } from '../middleware/http-handler';

/** DELETE /api/spaces/:id */
export const handler = httpHandler(async (event, app) => json(200, await deleteSpace(app.deps, event.pathParameters?.id)));
