import { listEntitySnapshots } from '../../core/history/state-snapshots';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/snapshots/:entityType/:entityId?limit= */
export const handler = httpHandler(async (event, app) =>
  json(await listEntitySnapshots(app.deps, event.pathParameters?.entityType, event.pathParameters?.entityId, event.queryStringParameters)),
);
