import { runJobNow } from '../../core/runtime/scheduled-jobs';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/cron/jobs/:id/run: 202 once the runtime accepted it; 500 when the runtime call fails. */
export const handler = httpHandler(async (event, app) => json(await runJobNow(app.deps, event.pathParameters?.id)));
