import { getAgentLimits } from '../../core/agents/dispatch-controls';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/agents/:agent/limits */
export const handler = httpHandler(async (event, app) => json(await getAgentLimits(app.deps, event.pathParameters?.agent)));
