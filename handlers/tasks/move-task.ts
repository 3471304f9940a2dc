import { moveTask } from '../../core/tasks/commands';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/tasks/:id/move {status} */
export const handler = httpHandler(async (event, app) => json(200, await moveTask(app.deps, event.pathParameters?.id, event.body)));
