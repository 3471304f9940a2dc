import { recordHeartbeat } from '../../core/agents/liveness';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/agents/heartbeat {agent_name, status, metadata?} */
export const handler = httpHandler(async (event, app) => json(await recordHeartbeat(app.deps, event.body)));
