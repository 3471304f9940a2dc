import { reportStep } from '../../core/workflows/run-session-reports';
import { httpHandler, json } from '../middleware/http-handler';

/** PATCH /api/workflow-runs/:id/steps/:stepOrder */
export const handler = httpHandler(async (event, app) =>
  json(await reportStep(app.deps, event.pathParameters?.id, event.pathParameters?.stepOrder, event.body)),
);
