import { listRecentReceipts } from '../../core/actions/recent';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/actions/recent?limit= */
export const handler = httpHandler(async (event, app) => json(await listRecentReceipts(app.deps, event.queryStringParameters)));
