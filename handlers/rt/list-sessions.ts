import { listRuntimeSessions } from '../../core/runtime/session-reader';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/rt/sessions?agent&all&active */
export const handler = httpHandler(async (event, app) => json(await listRuntimeSessions(app.deps, event.queryStringParameters)));
