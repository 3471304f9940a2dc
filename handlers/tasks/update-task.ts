import { updateTask } from '../../core/tasks/commands';
import { httpHandler, json } from '../middleware/http-handler';

/** PATCH /api/tasks/:id */
export const handler = httpHandler(async (event, app) => json(await updateTask(app.deps, event.pathParameters?.id, event.body)));
