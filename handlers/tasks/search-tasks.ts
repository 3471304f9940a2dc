import { searchTasks } from '../../core/tasks/search';
import { httpHandler } from '../middleware/http-handler';
import { json } from '../middleware/responses';

/** GET /api/tasks/search?q=&limit=&project_id= */
export const handler = httpHandler(async (event, app) => json(await searchTasks(app.deps, event.queryStringParameters)));
