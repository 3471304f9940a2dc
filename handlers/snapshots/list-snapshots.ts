import { listSnapshots } from '../../core/snapshots/list-snapshots';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/snapshots (works without a database: the registry is SNAPSHOT_DIR) */
export const handler = httpHandler(async (_event, app) => json(await listSnapshots(app.deps)));
