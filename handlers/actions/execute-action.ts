import { executeAction } from '../../core/actions/execute';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/actions/execute (action envelope) */
export const handler = httpHandler(async (event, app) => json(await executeAction(app.deps, event.body)));
