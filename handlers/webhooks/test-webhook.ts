import { testWebhook } from '../../core/webhooks/delivery';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/webhooks/:id/test */
export const handler = httpHandler(async (event, app) => json(await testWebhook(app.deps, event.pathParameters?.id)));
