import { promoteRuntimeMemory } from '../../core/runtime/proxies';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/runtime/memory/promote {agent, limit} */
export const handler = httpHandler(async (event, app) => json(await promoteRuntimeMemory(app.deps, event.body)));
