import { createAgentToken } from '../../core/auth/agent-tokens';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/agent-tokens {agent_id, label?, expires_at?, scopes?} (operator): the token, shown once. */
export const handler = httpHandler(async (event, app) => json(await createAgentToken(app.deps, event.body)));
