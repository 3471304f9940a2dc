import { getAgentQueueJson } from '../../core/views/agent-queue';
import { httpHandler } from '../middleware/http-handler';
import { jsonPieces } from '../middleware/responses';

/** GET /api/views/agent?agent=&page=&limit= */
export const handler = httpHandler(async (event, app) => jsonPieces(await getAgentQueueJson(app.deps, event.queryStringParameters)));
