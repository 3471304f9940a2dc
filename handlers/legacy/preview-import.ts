import { previewImport } from '../../core/legacy/export-import';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/import/preview */
export const handler = httpHandler(async (event) => json(await previewImport(event.body)));
