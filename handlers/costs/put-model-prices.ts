import { putPriceTable } from '../../core/costs/price-book';
import { httpHandler, json } from '../middleware/http-handler';

/** PUT /api/costs/prices {prices, actor?} */
export const handler = httpHandler(async (event, app) => json(await putPriceTable(app.deps, event.body)));
