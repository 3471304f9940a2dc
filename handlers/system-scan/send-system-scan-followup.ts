import { sendScanFollowUp } from '../../core/workflows/system-scan';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/system-scan/followup */
export const handler = httpHandler(async (event, app) => json(await sendScanFollowUp(app.deps, event.body)));
