import { agentBridge } from '../../core/workflows/agent-bridge';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/agents/:agent/bridge */
export const handler = httpHandler(async (event, app) => json(await agentBridge(app.deps, event.pathParameters?.agent)));
