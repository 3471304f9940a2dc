import { getTimelineJson } from '../../core/views/timeline';
import { httpHandler } from '../middleware/http-handler';
import { jsonPieces } from '../middleware/responses';

/** GET /api/views/timeline?project_id=&start=&end= */
export const handler = httpHandler(async (event, app) => jsonPieces(await getTimelineJson(app.deps, event.queryStringParameters)));
