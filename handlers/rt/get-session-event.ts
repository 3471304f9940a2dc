import { sessionEventDetail } from '../../core/runtime/session-events';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/rt/sessions/:sessionId/events/:line?agent */
export const handler = httpHandler(async (event, app) =>
  json(await sessionEventDetail(app.deps, event.pathParameters?.sessionId, event.pathParameters?.line, event.queryStringParameters)),
);
