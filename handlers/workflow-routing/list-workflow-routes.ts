import { listRoutes } from '../../core/workflows/routing';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/workflow-routing */
export const handler = httpHandler(async (_event, app) => json(200, await listRoutes(app.deps)));
