import { duplicateSpace } from '../../core/spaces/commands';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/spaces/:id/duplicate {slug?} */
export const handler = httpHandler(async (event, app) => json(await duplicateSpace(app.deps, event.pathParameters?.id, event.body)));
