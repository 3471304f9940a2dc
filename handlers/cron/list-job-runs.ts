import { listJobRuns } from '../../core/runtime/scheduled-jobs';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/cron/jobs/:id/runs?limit */
export const handler = httpHandler(async (event, app) =>
  json(await listJobRuns(app.deps, event.pathParameters?.id, event.queryStringParameters)),
);
