import { dispatcherStats } from '../../core/workflows/dispatcher-stats';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/workflow-runs/dispatcher/stats */
export const handler = httpHandler(async (_event, app) => json(200, await dispatcherStats(app.deps)));
