import { listAllTasks } from '../../core/tasks/queries';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/tasks/all?project_id=&updated_since= */
export const handler = httpHandler(async (event, app) => json(200, await listAllTasks(app.deps, event.queryStringParameters)));
