import { patchRun } from '../../core/workflows/run-session-reports';
import { httpHandler, json } from '../middleware/http-handler';

/** PATCH /api/workflow-runs/:id */
export const handler = httpHandler(async (event, app) => json(await patchRun(app.deps, event.pathParameters?.id, event.body)));
