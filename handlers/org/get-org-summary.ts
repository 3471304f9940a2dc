import { getOrgSummary } from '../../core/org/summary';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/org/summary */
export const handler = httpHandler(async (_event, app) => json(await getOrgSummary(app.deps)));
