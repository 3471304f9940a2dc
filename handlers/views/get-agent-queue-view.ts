import { getAgentQueue } from '../../core/views/agent-queue';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/views/agent?agent=&page=&limit= */
export const handler = httpHandler(async (event, app) => json(200, await getAgentQueue(app.deps, event.queryStringParameters)));
