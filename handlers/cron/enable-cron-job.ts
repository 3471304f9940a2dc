import { setJobEnabled } from '../../core/runtime/scheduled-jobs';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/cron/jobs/:id/enable */
export const handler = httpHandler(async (event, app) => json(await setJobEnabled(app.deps, event.pathParameters?.id, true)));
