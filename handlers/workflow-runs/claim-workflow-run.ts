import { claimRun } from '../../core/workflows/run-claim';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/workflow-runs/:id/claim */
export const handler = httpHandler(async (event, app) => json(await claimRun(app.deps, event.pathParameters?.id, event.body)));
