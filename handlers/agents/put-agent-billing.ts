import { putAgentBilling } from '../../core/agents/billing';
import { httpHandler, json } from '../middleware/http-handler';

/** PUT /api/agents/:agent/billing {billing, actor?} */
export const handler = httpHandler(async (event, app) => json(await putAgentBilling(app.deps, event.pathParameters?.agent, event.body)));
