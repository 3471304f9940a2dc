import { listRuntimeAgents } from '../../core/runtime/session-reader';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/rt/agents */
export const handler = httpHandler(async (_event, app) => json(200, await listRuntimeAgents(app.deps)));
