import { getBudgetLedger } from '../../core/budgets/queries';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/budgets/:id/ledger?period=current */
export const handler = httpHandler(async (event, app) =>
  json(await getBudgetLedger(app.deps, event.pathParameters?.id, event.queryStringParameters)),
);
