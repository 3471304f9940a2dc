import { getTaskHistory } from '../../core/tasks/queries';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/tasks/:id/history */
export const handler = httpHandler(async (event, app) => json(await getTaskHistory(app.deps, event.pathParameters?.id)));
