import { listDeliveries } from '../../core/webhooks/webhooks';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/webhooks/:id/deliveries?limit= */
export const handler = httpHandler(async (event, app) =>
  json(await listDeliveries(app.deps, event.pathParameters?.id, event.queryStringParameters)),
);
