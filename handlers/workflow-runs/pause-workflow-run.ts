import { pauseRun } from '../../core/workflows/run-operator-commands';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/workflow-runs/:id/pause */
export const handler = httpHandler(async (event, app) => json(await pauseRun(app.deps, event.pathParameters?.id, event.body)));
