import { listHistory } from '../../core/history/history';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/history?limit=&actor=&action=&entity_type= */
export const handler = httpHandler(async (event, app) => json(await listHistory(app.deps, event.queryStringParameters)));
