import { getCostSummary } from '../../core/costs/summary';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/costs/summary?days= */
export const handler = httpHandler(async (event, app) => json(await getCostSummary(app.deps, event.queryStringParameters)));
