import { sessionEvents } from '../../core/runtime/session-events';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/rt/sessions/:sessionId/events?agent&afterLine&limit */
export const handler = httpHandler(async (event, app) =>
  json(await sessionEvents(app.deps, event.pathParameters?.sessionId, event.queryStringParameters)),
);
