import { reassignRun } from '../../core/workflows/run-operator-commands';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/workflow-runs/:id/reassign */
export const handler = httpHandler(async (event, app) => json(await reassignRun(app.deps, event.pathParameters?.id, event.body)));
