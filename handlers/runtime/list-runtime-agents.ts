import { runtimeAgents } from '../../core/runtime/proxies';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/runtime/agents */
export const handler = httpHandler(async (_event, app) => json(await runtimeAgents(app.deps)));
