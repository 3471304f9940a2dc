import { updateArtifact } from '../../core/workflows/artifacts';
import { httpHandler, json } from '../middleware/http-handler';

/** PATCH /api/artifacts/:id */
export const handler = httpHandler(async (event, app) => json(await updateArtifact(app.deps, event.pathParameters?.id, event.body)));
