import { executeAction } from '../../core/actions/execute';
import { snapshotDeps } from '../../infra/snapshots/snapshot-deps';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/actions/execute (action envelope) */
export const handler = httpHandler(async (event, app) => {
  const answer = await executeAction(snapshotDeps(app), event.body);
  return json(answer.status, answer.body);
});
