import { renewClaim } from '../../core/agents/locks';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/agent/claim/renew {task_id, agent_name, lock_token, lease_seconds?} */
export const handler = httpHandler(async (event, app) =>
  json(await renewClaim(app.deps, event.body, { defaultLeaseSeconds: app.config.taskLeaseSeconds })),
);
