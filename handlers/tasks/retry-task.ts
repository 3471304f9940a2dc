import { retryTask } from '../../core/tasks/commands';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/tasks/:id/retry */
export const handler = httpHandler(async (event, app) => json(await retryTask(app.deps, event.pathParameters?.id)));
