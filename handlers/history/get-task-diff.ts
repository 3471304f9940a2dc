import { taskDiff } from '../../core/history/history';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/history/:taskId/diff?from=&to= */
export const handler = httpHandler(async (event, app) =>
  json(await taskDiff(app.deps, event.pathParameters?.taskId, event.queryStringParameters)),
);
