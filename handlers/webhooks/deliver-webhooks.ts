import { runWebhookDeliveries } from '../../core/webhooks/delivery';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/webhooks/deliver: one delivery pass now (the runner and the scheduled Lambda run it on their own too). */
export const handler = httpHandler(async (_event, app) => json(await runWebhookDeliveries(app.deps)));
