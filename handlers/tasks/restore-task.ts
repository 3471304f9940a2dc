import { restoreTask } from '../../core/tasks/commands';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/tasks/:id/restore */
export const handler = httpHandler(async (event, app) => json(await restoreTask(app.deps, event.pathParameters?.id)));
