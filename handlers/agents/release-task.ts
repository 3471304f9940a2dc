import { releaseTask } from '../../core/agents/locks';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/agent/release {task_id, agent_name?, lock_token?} */
export const handler = httpHandler(async (event, app) => json(await releaseTask(app.deps, event.body)));
