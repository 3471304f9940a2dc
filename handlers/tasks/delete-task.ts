import { deleteTask } from '../../core/tasks/commands';
import { httpHandler, json } from '../middleware/http-handler';

/** DELETE /api/tasks/:id (soft delete) */
export const handler = httpHandler(async (event, app) => json(await deleteTask(app.deps, event.pathParameters?.id)));
