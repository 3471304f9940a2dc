import { storageStats } from '../../core/health/health';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/stats */
export const handler = httpHandler(async (_event, app) => json(await storageStats(app.deps)));
