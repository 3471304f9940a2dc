import { sessionDetail } from '../../core/runtime/session-reader';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/rt/sessions/:sessionId?agent&messages */
export const handler = httpHandler(async (event, app) =>
  json(await sessionDetail(app.deps, event.pathParameters?.sessionId, event.queryStringParameters)),
);
