import { getBoardAsOf } from '../../core/views/board-as-of';
import { httpHandler } from '../middleware/http-handler';
import { json } from '../middleware/responses';

/** GET /api/views/board/as-of?project_id=&at= */
export const handler = httpHandler(async (event, app) => json(await getBoardAsOf(app.deps, event.queryStringParameters)));
