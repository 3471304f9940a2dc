import { healthReport } from '../../core/health/health';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/health (public) */
export const handler = httpHandler(async (_event, app) =>
  json(
    await healthReport(app.deps, {
      port: app.config.port,
      uptimeSeconds: (Date.now() - app.startedAt.getTime()) / 1000,
      storage: app.storageInfo,
    }),
  ),
);
