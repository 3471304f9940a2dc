import { restoreStatus } from '../../core/restore/restore-status';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/restore/:restoreId: running, completed, failed or interrupted, with its progress (a client that lost the apply's answer asks here). */
export const handler = httpHandler(async (event, app) => json(await restoreStatus(app.deps, event.pathParameters?.restoreId)));
