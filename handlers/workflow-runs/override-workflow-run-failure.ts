import { overrideFailure } from '../../core/workflows/run-operator-commands';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/workflow-runs/:id/override-failure */
export const handler = httpHandler(async (event, app) => json(await overrideFailure(app.deps, event.pathParameters?.id, event.body)));
