import { taskSnapshotAt } from '../../core/history/history';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/history/:taskId/snapshot?at= */
export const handler = httpHandler(async (event, app) =>
  json(await taskSnapshotAt(app.deps, event.pathParameters?.taskId, event.queryStringParameters)),
);
