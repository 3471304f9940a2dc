import { citationQueueStatus } from '../../core/runtime/citation-queue';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/citation-queue/status from DATA_DIR/citation-queue.json (zeros when absent). */
export const handler = httpHandler(async (_event, app) => json(await citationQueueStatus(app.deps)));
