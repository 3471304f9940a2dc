import { repriceRuns } from '../../core/costs/reprice';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/costs/reprice {from, to, actor?} */
export const handler = httpHandler(async (event, app) => json(await repriceRuns(app.deps, event.body)));
