import { previewRevert } from '../../core/history/state-snapshots';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/snapshots/:snapshotId/preview-revert (no side effects) */
export const handler = httpHandler(async (event, app) => json(await previewRevert(app.deps, event.pathParameters?.snapshotId)));
