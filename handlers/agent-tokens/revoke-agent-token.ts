import { revokeAgentToken } from '../../core/auth/agent-tokens';
import { httpHandler, json } from '../middleware/http-handler';

/** DELETE /api/agent-tokens/:id (operator): revoked at once. */
export const handler = httpHandler(async (event, app) => json(await revokeAgentToken(app.deps, event.pathParameters?.id)));
