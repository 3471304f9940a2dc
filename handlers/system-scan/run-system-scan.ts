import { runSystemScan } from '../../core/workflows/system-scan';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/system-scan/run */
export const handler = httpHandler(async (event, app) => json(await runSystemScan(app.deps, event.body)));
