import { getBoard } from '../../core/views/board';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/views/board?project_id= */
export const handler = httpHandler(async (event, app) => json(200, await getBoard(app.deps, event.queryStringParameters)));
