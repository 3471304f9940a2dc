import { recordMcpTelemetry } from '../../core/workflows/instrumentation';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/mcp/telemetry */
export const handler = httpHandler(async (event, app) => json(await recordMcpTelemetry(app.deps, event.body)));
