import { listBlockers } from '../../core/workflows/blockers';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/blockers */
export const handler = httpHandler(async (_event, app) => json(await listBlockers(app.deps)));
