import { environmentFacts, getSettings } from '../../core/settings/settings';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/settings: preference values; environment keys only as {type, set}. */
export const handler = httpHandler(async (_event, app) => json(await getSettings(app.deps, environmentFacts(app.config))));
