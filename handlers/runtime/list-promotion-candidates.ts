import { memoryPromotionCandidates } from '../../core/runtime/proxies';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/runtime/memory/promote?agent&limit */
export const handler = httpHandler(async (event, app) => json(await memoryPromotionCandidates(app.deps, event.queryStringParameters)));
