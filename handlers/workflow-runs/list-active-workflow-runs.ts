import { listActiveRuns } from '../../core/workflows/run-queries';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/workflow-runs/active */
export const handler = httpHandler(async (event, app) => json(await listActiveRuns(app.deps)));
