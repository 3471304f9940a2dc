import { listPendingRuns } from '../../core/workflows/run-queries';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/workflow-runs/pending?limit=&agent_id= */
export const handler = httpHandler(async (event, app) => json(await listPendingRuns(app.deps, event.queryStringParameters)));
