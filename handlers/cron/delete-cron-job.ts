import { deleteScheduledJob } from '../../core/runtime/scheduled-jobs';
import { httpHandler, json } from '../middleware/http-handler';

/** DELETE /api/cron/jobs/:id: removes a legacy job definition file, else the runtime's job of that id; 404 when neither. */
export const handler = httpHandler(async (event, app) => json(await deleteScheduledJob(app.deps, event.pathParameters?.id)));
