import { listAgentTokens } from '../../core/auth/agent-tokens';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/agent-tokens (operator): every token, without secrets. */
export const handler = httpHandler(async (_event, app) => json(await listAgentTokens(app.deps)));
