import { runtimeHealth } from '../../core/runtime/proxies';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/runtime/health: 502 when the runtime call fails or reports an error. */
export const handler = httpHandler(async (_event, app) => json(await runtimeHealth(app.deps)));
