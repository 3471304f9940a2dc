import { claimTask } from '../../core/agents/locks';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/agent/claim {task_id, agent_name, lease_seconds?} */
export const handler = httpHandler(async (event, app) =>
  json(await claimTask(app.deps, event.body, { defaultLeaseSeconds: app.config.taskLeaseSeconds })),
);
