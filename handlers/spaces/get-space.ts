import { getSpace } from '../../core/spaces/queries';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/spaces/:id */
export const handler = httpHandler(async (event, app) => json(await getSpace(app.deps, event.pathParameters?.id)));
