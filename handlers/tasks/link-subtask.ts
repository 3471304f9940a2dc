import { linkSubtask } from '../../core/tasks/commands';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/tasks/:id/subtasks {task_id} */
export const handler = httpHandler(async (event, app) => json(await linkSubtask(app.deps, event.pathParameters?.id, event.body)));
