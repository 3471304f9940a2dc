import { dispatcherStats } from '../../core/workflows/dispatcher-stats';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/workflow-runs/dispatcher/stats */
export const handler = httpHandler(async (_event, app) => json(await dispatcherStats(app.deps)));
