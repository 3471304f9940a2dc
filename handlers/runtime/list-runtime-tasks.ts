import { runtimeTasks } from '../../core/runtime/proxies';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/runtime/tasks?runtime&status */
export const handler = httpHandler(async (event, app) => json(await runtimeTasks(app.deps, event.queryStringParameters)));
