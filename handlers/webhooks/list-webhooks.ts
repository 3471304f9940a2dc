import { listWebhooks } from '../../core/webhooks/webhooks';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/webhooks */
export const handler = httpHandler(async (_event, app) => json(await listWebhooks(app.deps)));
