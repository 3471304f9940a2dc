import { setJobEnabled } from '../../core/runtime/scheduled-jobs';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/cron/jobs/:id/enable */
export const handler = httpHandler(async (event, app) => json(200, await setJobEnabled(app.deps, event.pathParameters?.id, true)));
