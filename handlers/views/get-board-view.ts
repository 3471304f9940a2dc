import { getBoardJson } from '../../core/views/board';
import { httpHandler } from '../middleware/http-handler';
import { jsonPieces } from '../middleware/responses';

/** GET /api/views/board?project_id=&include=stuck */
export const handler = httpHandler(async (event, app) => jsonPieces(await getBoardJson(app.deps, event.queryStringParameters)));
