import { getTaskJson } from '../../core/tasks/queries';
import { httpHandler } from '../middleware/http-handler';
import { jsonPieces } from '../middleware/responses';

/** GET /api/tasks/:id */
export const handler = httpHandler(async (event, app) => jsonPieces(await getTaskJson(app.deps, event.pathParameters?.id)));
