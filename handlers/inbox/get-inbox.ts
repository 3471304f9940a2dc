import { getInbox } from '../../core/inbox/inbox';
import { httpHandler } from '../middleware/http-handler';
import { json } from '../middleware/responses';

/** GET /api/inbox?limit= */
export const handler = httpHandler(async (event, app) => json(await getInbox(app.deps, event.queryStringParameters)));
