import { listBudgets } from '../../core/budgets/queries';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/budgets */
export const handler = httpHandler(async (_event, app) => json(await listBudgets(app.deps)));
