import { listStateSnapshots } from '../../core/history/state-snapshots';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/state-snapshots?limit=&entity_type= */
export const handler = httpHandler(async (event, app) => json(await listStateSnapshots(app.deps, event.queryStringParameters)));
