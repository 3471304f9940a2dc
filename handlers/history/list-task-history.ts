import { listTaskHistory } from '../../core/history/history';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/history/:taskId?limit= */
export const handler = httpHandler(async (event, app) =>
  json(await listTaskHistory(app.deps, event.pathParameters?.taskId, event.queryStringParameters)),
);
