import { getTask } from '../../core/tasks/queries';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/tasks/:id */
export const handler = httpHandler(async (event, app) => json(200, await getTask(app.deps, event.pathParameters?.id)));
