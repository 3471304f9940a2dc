import { getBoardJson } from '../../core/views/board';
import { httpHandler } from '../middleware/http-handler';
import { jsonText } from '../middleware/responses';

/** GET /api/views/board?project_id= */
export const handler = httpHandler(async (event, app) => jsonText(200, await getBoardJson(app.deps, event.queryStringParameters)));
