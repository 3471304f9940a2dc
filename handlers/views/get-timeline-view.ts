import { getTimeline } from '../../core/views/timeline';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/views/timeline?project_id=&start=&end= */
export const handler = httpHandler(async (event, app) => json(200, await getTimeline(app.deps, event.queryStringParameters)));
