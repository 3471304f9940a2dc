import { indexRuntimeMemory } from '../../core/runtime/proxies';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/runtime/memory/index?agent */
export const handler = httpHandler(async (event, app) => json(await indexRuntimeMemory(app.deps, event.queryStringParameters)));
