import { exportLegacy } from '../../core/legacy/export-import';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/export */
export const handler = httpHandler(async (_event, app) => json(200, await exportLegacy(app.deps)));
