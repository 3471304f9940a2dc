import { getCostRollup } from '../../core/costs/rollup';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/costs/rollup?group_by=&days= */
export const handler = httpHandler(async (event, app) => json(await getCostRollup(app.deps, event.queryStringParameters)));
