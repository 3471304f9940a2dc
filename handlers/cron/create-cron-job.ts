import { createLegacyJob } from '../../core/runtime/scheduled-jobs';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/cron/jobs: writes a legacy job definition file under DATA_DIR/cron-jobs. */
export const handler = httpHandler(async (event, app) =>
  json(201, await createLegacyJob(app.deps, event.body)),
);
