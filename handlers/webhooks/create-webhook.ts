import { createWebhook } from '../../core/webhooks/webhooks';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/webhooks {url, events, secret?, active?} */
export const handler = httpHandler(async (event, app) => json(await createWebhook(app.deps, event.body)));
