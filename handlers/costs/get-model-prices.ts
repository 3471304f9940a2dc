import { getPriceTable } from '../../core/costs/price-book';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/costs/prices */
export const handler = httpHandler(async (_event, app) => json(await getPriceTable(app.deps)));
