import { updateBudget } from '../../core/budgets/commands';
import { httpHandler, json } from '../middleware/http-handler';

/** PATCH /api/budgets/:id */
export const handler = httpHandler(async (event, app) => json(await updateBudget(app.deps, event.pathParameters?.id, event.body)));
