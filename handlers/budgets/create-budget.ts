import { createBudget } from '../../core/budgets/commands';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/budgets */
export const handler = httpHandler(async (event, app) => {
  const answer = await createBudget(app.deps, event.body);
  return json(answer.status, answer.body);
});
