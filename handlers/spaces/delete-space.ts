import { deleteSpace } from '../../core/spaces/commands';
import { httpHandler, json } from '../middleware/http-handler';

/** DELETE /api/spaces/:id */
export const handler = httpHandler(async (event, app) => json(await deleteSpace(app.deps, event.pathParameters?.id)));
