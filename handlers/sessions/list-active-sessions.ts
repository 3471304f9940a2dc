import { listActiveSessions } from '../../core/workflows/sessions';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/sessions/active */
export const handler = httpHandler(async (_event, app) => json(await listActiveSessions(app.deps)));
