import { blockerSummary } from '../../core/workflows/blockers';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/blockers/summary */
export const handler = httpHandler(async (_event, app) => json(await blockerSummary(app.deps)));
