import { actionCatalog } from '../../core/actions/catalog';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/actions/catalog: kinds, params schemas, severity, confirmation mode, rollback hint templates */
export const handler = httpHandler(async () => json(actionCatalog()));
