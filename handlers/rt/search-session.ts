import { searchSession } from '../../core/runtime/session-search';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/rt/sessions/:sessionId/search?agent&q&afterLine&limit */
export const handler = httpHandler(async (event, app) =>
  json(await searchSession(app.deps, event.pathParameters?.sessionId, event.queryStringParameters)),
);
