import { deleteLegacyJob } from '../../core/runtime/scheduled-jobs';
import { httpHandler, json } from '../middleware/http-handler';

/** DELETE /api/cron/jobs/:id: removes a legacy job definition file; 404 when absent. */
export const handler = httpHandler(async (event, app) =>
  json(200, await deleteLegacyJob(app.deps, event.pathParameters?.id)),
);
