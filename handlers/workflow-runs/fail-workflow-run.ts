import { failRun } from '../../core/workflows/run-session-reports';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/workflow-runs/:id/fail */
export const handler = httpHandler(async (event, app) => json(await failRun(app.deps, event.pathParameters?.id, event.body)));
