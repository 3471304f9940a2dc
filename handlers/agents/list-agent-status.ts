import { listAgentLiveness } from '../../core/agents/liveness';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/agents/status?offline_after_seconds= */
export const handler = httpHandler(async (event, app) => json(await listAgentLiveness(app.deps, event.queryStringParameters)));
