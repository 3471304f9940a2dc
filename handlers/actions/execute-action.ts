import { executeAction } from '../../core/actions/execute';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/actions/execute (action envelope) */
export const handler = httpHandler(async (event, app) => {
  const answer = await executeAction(app.deps, event.body);
  return json(answer.status, answer.body);
});
