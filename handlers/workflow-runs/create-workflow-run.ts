import { createRun } from '../../core/workflows/run-commands';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/workflow-runs */
export const handler = httpHandler(async (event, app) => json(201, await createRun(app.deps, event.body)));
