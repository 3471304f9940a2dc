import { completeRun } from '../../core/workflows/run-session-reports';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/workflow-runs/:id/complete */
export const handler = httpHandler(async (event, app) => json(await completeRun(app.deps, event.pathParameters?.id, event.body)));
