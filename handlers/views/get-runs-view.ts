import { getRunsView } from '../../core/workflows/runs-view';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/views/runs?status=&workflow_type=&agent=&task_id=&limit= (the console's Runs screen in one request) */
export const handler = httpHandler(async (event, app) => json(await getRunsView(app.deps, event.queryStringParameters)));
