import { importLegacy } from '../../core/legacy/export-import';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/import {version, mode, projects?, tasks?, workflows?, auditLog?, settings?} */
export const handler = httpHandler(async (event, app) => json(await importLegacy(app.deps, event.body)));
