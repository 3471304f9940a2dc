import { getBurnDowns } from '../../core/budgets/burn-down';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/budgets/burn-down */
export const handler = httpHandler(async (_event, app) => json(await getBurnDowns(app.deps)));
