import { listRoutes } from '../../core/workflows/routing';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/workflow-routing */
export const handler = httpHandler(async (_event, app) => json(await listRoutes(app.deps)));
