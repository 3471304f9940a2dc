import { getWebhook } from '../../core/webhooks/webhooks';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/webhooks/:id */
export const handler = httpHandler(async (event, app) => json(await getWebhook(app.deps, event.pathParameters?.id)));
