import { updateBudget } from '../../core/budgets/commands';
import { httpHandler, json } from '../middleware/http-handler';

/** PATCH /api/budgets/:id */
export const handler = httpHandler(async (event, app) => json(200, await updateBudget(app.deps, event.pathParameters?.id, event.body)));
