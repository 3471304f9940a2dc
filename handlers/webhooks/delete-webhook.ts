import { deleteWebhook } from '../../core/webhooks/webhooks';
import { httpHandler, json } from '../middleware/http-handler';

/** DELETE /api/webhooks/:id */
export const handler = httpHandler(async (event, app) => json(await deleteWebhook(app.deps, event.pathParameters?.id)));
