import { sessionMessages } from '../../core/runtime/session-reader';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/rt/sessions/:sessionId/messages?agent&after&limit&filter */
export const handler = httpHandler(async (event, app) =>
  json(await sessionMessages(app.deps, event.pathParameters?.sessionId, event.queryStringParameters)),
);
