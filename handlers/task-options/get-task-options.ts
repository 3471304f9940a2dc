import { getTaskOptions } from '../../core/tasks/options';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/task-options */
export const handler = httpHandler(async (_event, app) => json(await getTaskOptions(app.deps)));
