import { recordSessionHeartbeat } from '../../core/workflows/sessions';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/sessions/:id/heartbeat (id: a session key, URL-encoded) */
export const handler = httpHandler(async (event, app) =>
  json(await recordSessionHeartbeat(app.deps, event.pathParameters?.id, event.body)),
);
