import { runtimeTaskAudit } from '../../core/runtime/proxies';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/runtime/tasks/audit */
export const handler = httpHandler(async (_event, app) => json(await runtimeTaskAudit(app.deps)));
