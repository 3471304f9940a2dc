import { runtimeHealthStatus } from '../../core/runtime/health-status';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/health-status: database, runtime gateway (and its cron check when it answers), this server. */
export const handler = httpHandler(async (_event, app) => json(await runtimeHealthStatus(app.deps)));
