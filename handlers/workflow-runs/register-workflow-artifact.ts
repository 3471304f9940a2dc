import { registerArtifact } from '../../core/workflows/artifacts';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/workflow-runs/:id/artifacts */
export const handler = httpHandler(async (event, app) => json(await registerArtifact(app.deps, event.pathParameters?.id, event.body)));
