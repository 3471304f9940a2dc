import { listRuntimeAgents } from '../../core/runtime/session-reader';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/rt/agents */
export const handler = httpHandler(async (_event, app) => json(await listRuntimeAgents(app.deps)));
