import { listViews } from '../../core/views/saved-views';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/views?project_id= */
export const handler = httpHandler(async (event, app) => json(await listViews(app.deps, event.queryStringParameters)));
