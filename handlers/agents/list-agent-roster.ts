import { listAgentRoster } from '../../core/agents/roster';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/agents/roster?offline_after_seconds= (operator): every agent with liveness, live runs, cap, pause and billing. */
export const handler = httpHandler(async (event, app) => json(await listAgentRoster(app.deps, event.queryStringParameters)));
