import { listSpaces } from '../../core/spaces/queries';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/spaces */
export const handler = httpHandler(async (event, app) => json(await listSpaces(app.deps)));
