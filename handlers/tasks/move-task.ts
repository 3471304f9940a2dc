import { moveTask } from '../../core/tasks/commands';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/tasks/:id/move {status} */
export const handler = httpHandler(async (event, app) => json(await moveTask(app.deps, event.pathParameters?.id, event.body)));
