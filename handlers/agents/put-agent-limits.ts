import { putAgentLimits } from '../../core/agents/dispatch-controls';
import { httpHandler, json } from '../middleware/http-handler';

/** PUT /api/agents/:agent/limits {max_concurrent_runs, actor?} */
export const handler = httpHandler(async (event, app) => json(await putAgentLimits(app.deps, event.pathParameters?.agent, event.body)));
