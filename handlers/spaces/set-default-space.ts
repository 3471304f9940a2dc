import { setDefaultSpace } from '../../core/spaces/commands';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/spaces/:id/set-default */
export const handler = httpHandler(async (event, app) => json(await setDefaultSpace(app.deps, event.pathParameters?.id)));
