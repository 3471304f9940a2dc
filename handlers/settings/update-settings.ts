import { environmentFacts, updateSettings } from '../../core/settings/settings';
import { httpHandler, json } from '../middleware/http-handler';

/** PATCH /api/settings {<preference key>: value or null} */
export const handler = httpHandler(async (event, app) => json(await updateSettings(app.deps, event.body, environmentFacts(app.config))));
