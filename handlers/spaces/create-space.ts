import { createSpace } from '../../core/spaces/commands';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/spaces */
export const handler = httpHandler(async (event, app) => json(await createSpace(app.deps, event.body)));
