import { listScheduledJobs } from '../../core/runtime/scheduled-jobs';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/cron/jobs: the runtime's jobs and the legacy definition files (marked legacy). */
export const handler = httpHandler(async (_event, app) => json(await listScheduledJobs(app.deps)));
