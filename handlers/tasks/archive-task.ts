import { archiveTask } from '../../core/tasks/commands';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/tasks/:id/archive */
export const handler = httpHandler(async (event, app) => json(200, await archiveTask(app.deps, event.pathParameters?.id)));
