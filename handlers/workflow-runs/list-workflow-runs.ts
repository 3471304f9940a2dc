import { listRuns } from '../../core/workflows/run-queries';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/workflow-runs?workflow_type=&status=&task_id=&limit= */
export const handler = httpHandler(async (event, app) => json(await listRuns(app.deps, event.queryStringParameters)));
