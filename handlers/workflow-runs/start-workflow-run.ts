import { startRun } from '../../core/workflows/run-session-reports';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/workflow-runs/:id/start: the agent's start (with session_id), or the operator's dispatch-now of a queued run. */
export const handler = httpHandler(async (event, app) => json(await startRun(app.deps, event.pathParameters?.id, event.body)));
