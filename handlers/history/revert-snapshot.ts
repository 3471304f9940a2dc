import { revertSnapshot } from '../../core/history/state-snapshots';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/snapshots/:snapshotId/revert {actor?} */
export const handler = httpHandler(async (event, app) =>
  json(await revertSnapshot(app.deps, event.pathParameters?.snapshotId, event.body)),
);
