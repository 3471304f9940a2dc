import { cancelRun } from '../../core/workflows/run-operator-commands';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/workflow-runs/:id/cancel */
export const handler = httpHandler(async (event, app) => json(await cancelRun(app.deps, event.pathParameters?.id, event.body)));
