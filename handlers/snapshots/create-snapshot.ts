import { createSnapshot, parseSnapshotRequest } from '../../core/snapshots/create-snapshot';
import { snapshotDeps } from '../../infra/snapshots/snapshot-deps';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/snapshots {name?} */
export const handler = httpHandler(async (event, app) => json(201, await createSnapshot(snapshotDeps(app), parseSnapshotRequest(event.body))));
