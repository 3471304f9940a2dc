import { healthStatus } from '../../core/health/health';
import { httpHandler, json } from '../middleware/http-handler';

// The agent-runtime gateway is wired in by the runtime integration; until then it is reported as absent.
const gatewayNotConnected = { status: 'unavailable', healthy: false, agent_count: 0, reason: 'agent runtime integration not configured' };

/** GET /api/health-status */
export const handler = httpHandler(async (_event, app) => json(200, await healthStatus(app.deps, gatewayNotConnected)));
