import { createScheduledJob } from '../../core/runtime/scheduled-jobs';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/cron/jobs: through the released runtime's `cron add`, else a legacy job definition file under DATA_DIR/cron-jobs. */
export const handler = httpHandler(async (event, app) => json(await createScheduledJob(app.deps, event.body)));
