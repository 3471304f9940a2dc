import { updateWebhook } from '../../core/webhooks/webhooks';
import { httpHandler, json } from '../middleware/http-handler';

/** PATCH /api/webhooks/:id {url?, events?, secret?, active?} */
export const handler = httpHandler(async (event, app) => json(await updateWebhook(app.deps, event.pathParameters?.id, event.body)));
