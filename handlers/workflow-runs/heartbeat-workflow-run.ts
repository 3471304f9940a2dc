import { heartbeatRun } from '../../core/workflows/run-session-reports';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/workflow-runs/:id/heartbeat */
export const handler = httpHandler(async (event, app) => json(await heartbeatRun(app.deps, event.pathParameters?.id, event.body)));
