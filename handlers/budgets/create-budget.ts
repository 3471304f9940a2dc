import { createBudget } from '../../core/budgets/commands';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/budgets */
export const handler = httpHandler(async (event, app) => json(await createBudget(app.deps, event.body)));
