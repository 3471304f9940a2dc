import { createSnapshot, parseSnapshotRequest } from '../../core/snapshots/create-snapshot';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/snapshots {name?} */
export const handler = httpHandler(async (event, app) => json(await createSnapshot(app.deps, parseSnapshotRequest(event.body))));
