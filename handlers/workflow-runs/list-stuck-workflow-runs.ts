import { listStuckRuns } from '../../core/workflows/run-queries';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/workflow-runs/stuck */
export const handler = httpHandler(async (event, app) => json(await listStuckRuns(app.deps)));
