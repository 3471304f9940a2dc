import { escalateRun } from '../../core/workflows/run-operator-commands';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/workflow-runs/:id/escalate */
export const handler = httpHandler(async (event, app) => json(await escalateRun(app.deps, event.pathParameters?.id, event.body)));
