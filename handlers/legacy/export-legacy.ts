import { exportLegacy } from '../../core/legacy/export-import';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/export */
export const handler = httpHandler(async (_event, app) => json(await exportLegacy(app.deps)));
