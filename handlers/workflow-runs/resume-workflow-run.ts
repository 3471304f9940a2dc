import { resumeRun } from '../../core/workflows/run-operator-commands';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/workflow-runs/:id/resume */
export const handler = httpHandler(async (event, app) => json(await resumeRun(app.deps, event.pathParameters?.id, event.body)));
