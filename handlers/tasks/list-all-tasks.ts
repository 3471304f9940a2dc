import { listAllTasks } from '../../core/tasks/queries';
import { httpHandler } from '../middleware/http-handler';
import { streamedJsonArray } from '../middleware/responses';

/** GET /api/tasks/all?project_id=&updated_since=: a JSON array streamed a page at a time. */
export const handler = httpHandler(async (event, app) => streamedJsonArray(await listAllTasks(app.deps, event.queryStringParameters)));
