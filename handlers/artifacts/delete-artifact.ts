import { deleteArtifact } from '../../core/workflows/artifacts';
import { httpHandler, json } from '../middleware/http-handler';

/** DELETE /api/artifacts/:id */
export const handler = httpHandler(async (event, app) => json(await deleteArtifact(app.deps, event.pathParameters?.id)));
