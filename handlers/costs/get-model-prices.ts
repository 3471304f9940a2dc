import { getPriceTable } from '../../core/costs/price-book';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/costs/prices */
export const handler = httpHandler(async (_event, app) => json(200, await getPriceTable(app.deps)));
